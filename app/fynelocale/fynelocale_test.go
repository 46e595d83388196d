package fynelocale

import "testing"

func TestNeedsLanguage(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"c_utf8", map[string]string{"LANG": "C.UTF-8"}, true},
		{"lc_all_wins", map[string]string{"LC_ALL": "C.utf8", "LANG": "en_US.UTF-8"}, true},
		{"lc_all_real", map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "C.UTF-8"}, false},
		{"posix_modifier", map[string]string{"LANG": "POSIX.UTF-8@euro"}, true},
		{"plain_c", map[string]string{"LANG": "C"}, false}, // go-locale already treats it as none
		{"unset", map[string]string{}, false},
		{"language_set", map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, false},
		{"real_locale", map[string]string{"LANG": "en_GB.UTF-8"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsLanguage(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %v want %v", got, tt.want)
			}
		})
	}
}
