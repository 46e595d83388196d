package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// iconSize is the side of the drawn icons; trays scale them down.
const iconSize = 64

var (
	iconOnce  sync.Once
	iconCache map[Icon][]byte
)

// PNG is the icon's image, drawn in code so each state is distinct without shipping files.
func PNG(ic Icon) []byte {
	iconOnce.Do(func() {
		iconCache = map[Icon][]byte{}
		for _, i := range []Icon{IconCapturing, IconPaused, IconDeclined, IconStopped, IconFailing, IconBackfill, IconSyncing} {
			iconCache[i] = draw(i)
		}
	})
	if b, ok := iconCache[ic]; ok {
		return b
	}
	return iconCache[IconStopped]
}

// AppIcon is the application's icon: the capturing drop.
func AppIcon() []byte { return PNG(IconCapturing) }

func draw(ic Icon) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, iconSize, iconSize))
	c := float64(iconSize) / 2
	blue := color.NRGBA{0x1e, 0x88, 0xe5, 0xff}
	amber := color.NRGBA{0xf5, 0xa6, 0x23, 0xff}
	grey := color.NRGBA{0x8a, 0x8f, 0x98, 0xff}
	red := color.NRGBA{0xe5, 0x39, 0x35, 0xff}
	purple := color.NRGBA{0x8e, 0x44, 0xad, 0xff}
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	disc := func(r float64, col color.NRGBA) {
		each(img, func(x, y float64) bool { return math.Hypot(x-c, y-c) <= r }, col)
	}
	ring := func(r, w float64, col color.NRGBA) {
		each(img, func(x, y float64) bool { d := math.Hypot(x-c, y-c); return d <= r && d >= r-w }, col)
	}
	rect := func(x0, y0, x1, y1 float64, col color.NRGBA) {
		each(img, func(x, y float64) bool { return x >= x0 && x <= x1 && y >= y0 && y <= y1 }, col)
	}
	// waves: the pond's ripples, two arcs across the disc
	waves := func(col color.NRGBA) {
		for _, yy := range []float64{c - 6, c + 8} {
			each(img, func(x, y float64) bool {
				if math.Hypot(x-c, y-c) > 22 {
					return false
				}
				return math.Abs(y-(yy+3*math.Sin((x-c)/5))) <= 2.2
			}, col)
		}
	}
	switch ic {
	case IconCapturing:
		disc(30, blue)
		waves(white)
	case IconSyncing:
		disc(30, blue)
		ring(22, 5, white)
		rect(c+12, c-4, c+24, c+4, blue) // a gap in the ring: motion
	case IconBackfill:
		disc(30, purple)
		waves(white)
	case IconPaused:
		disc(30, amber)
		rect(c-11, c-13, c-4, c+13, white)
		rect(c+4, c-13, c+11, c+13, white)
	case IconDeclined:
		disc(30, grey)
		each(img, func(x, y float64) bool {
			return math.Hypot(x-c, y-c) <= 24 && math.Abs((x-c)-(y-c))/math.Sqrt2 <= 3.5
		}, white)
	case IconStopped:
		ring(30, 6, grey)
		rect(c-9, c-9, c+9, c+9, grey)
	case IconFailing:
		disc(30, red)
		rect(c-3.5, c-17, c+3.5, c+5, white)
		disc0(img, c, c+12, 4, white)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // encoding an in-memory NRGBA cannot fail
	}
	return buf.Bytes()
}

func disc0(img *image.NRGBA, cx, cy, r float64, col color.NRGBA) {
	each(img, func(x, y float64) bool { return math.Hypot(x-cx, y-cy) <= r }, col)
}

func each(img *image.NRGBA, in func(x, y float64) bool, col color.NRGBA) {
	for y := 0; y < iconSize; y++ {
		for x := 0; x < iconSize; x++ {
			if in(float64(x)+0.5, float64(y)+0.5) {
				img.SetNRGBA(x, y, col)
			}
		}
	}
}
