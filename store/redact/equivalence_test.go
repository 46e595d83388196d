package redact

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// The gathering hands gitleaks only the strings that hold a rule's keyword, and broadRule only
// windows around its keywords. Whatever gitleaks finds in a string scanned whole by every rule
// must still be found: strings are built at random from secrets in their rules' contexts, runs
// of word bytes before keywords (the expression takes up to 50), long secrets, keywords close
// together, runes that case-fold into ASCII, and filler of either kind.
func TestFindsWhatGitleaksFindsInEachString(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		const letters = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	generic := func() string {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		b := make([]byte, 12+rng.IntN(200))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	from := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	jwt := func() string {
		return "ey" + from(alnum, 17+rng.IntN(30)) + ".ey" + from(alnum+`/\_-`, 17+rng.IntN(60)) + "." + from(alnum+"_-", 10+rng.IntN(40)) + []string{"", "=", "=="}[rng.IntN(3)]
	}
	pieces := []func() string{
		func() string {
			return "Authorization: Bearer " + jwt() + []string{" ", "\n", `\n`, ";", "", "x"}[rng.IntN(6)]
		},
		func() string { return "x" + jwt() + " " },
		func() string {
			return "VAULT_TOKEN=hvs." + from(alnum+"_-", 85+rng.IntN(40)) + []string{" ", `"`, `\r`, ""}[rng.IntN(4)]
		},
		func() string {
			return "vault login s." + from(alnum, 22+rng.IntN(4)) + []string{" ", "'", ";", ""}[rng.IntN(4)]
		},
		func() string { return "os." + from(alnum, 24) + " strings.TrimSpace(s) " },
		func() string { return "the build passed and the tests are green. " },
		func() string { return "os.Open(path) returns the file; they said the key is fine. " },
		func() string { return word(rng.IntN(120)) },
		func() string { return "token" },
		func() string { return word(40+rng.IntN(30)) + "_api_key = \"" + generic() + "\"" },
		func() string { return "client_secret: " + generic() + "\n" },
		func() string { return "PASSWORD=" + generic() + ";" },
		func() string { return "auth" + strings.Repeat(" ", rng.IntN(25)) + ":= '" + generic() + "'" },
		func() string { return "access_token=" + generic() + `\n` },
		func() string { return "\u212Aey = " + generic() + " " },
		func() string { return "ſecret: " + generic() + " " },
		func() string { return "İ " },
		func() string { return "export AWS_ACCESS_KEY_ID=" + testSecrets["aws-access-token"] + " " },
		func() string { return "git clone https://" + testSecrets["github-pat"] + "@github.com/x/y " },
		func() string { return "bot " + testSecrets["slack-bot-token"] + " " },
		func() string { return "key: key: token = " + generic() },
		func() string { return "ñandú ☃ " },
	}
	var missed, extra, total int
	byRule := map[string]int{}
	for i := range 1200 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))]())
		}
		s := b.String()
		want := map[string]bool{}
		for _, f := range whole.DetectString(s) {
			if secret := cmp.Or(f.Secret, f.Match); len(secret) >= 4 {
				want[secret] = true
				byRule[f.RuleID]++
			}
		}
		g := r.gather()
		g.text(s)
		got := map[string]bool{}
		for _, f := range g.wait() {
			got[f.secret] = true
		}
		for secret := range want {
			total++
			if !got[secret] {
				missed++
				t.Errorf("string %d: %q missed in %q", i, secret, s)
			}
		}
		for secret := range got {
			if !want[secret] {
				extra++
			}
		}
		if missed > 5 {
			t.FailNow()
		}
	}
	if total < 2000 {
		t.Fatalf("only %d secrets found by the whole scan: the strings do not exercise the rules", total)
	}
	for _, w := range windowedRules {
		if byRule[w.id] < 100 {
			t.Errorf("%s found %d times by the whole scan: its windows are not exercised", w.id, byRule[w.id])
		}
	}
	t.Log(fmt.Sprintf("%d secrets found by scanning each string whole (%v); %d missed, %d more found", total, byRule, missed, extra))
}

// Each windowed rule's bounds were read off its expression as gitleaks v8.30.1 has it. A
// gitleaks that changes one fails here, and its bounds must be read again.
func TestWindowedRulesAreTheOnesTheirBoundsWereReadFrom(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range windowedRules {
		d := r.windowed[i]
		rule := d.Config.Rules[w.id]
		if len(d.Config.Rules) != 1 || rule.Regex == nil || rule.Regex.String() != w.expr {
			t.Errorf("%s's expression changed:\n%v\nthe bounds were read from\n%s", w.id, rule.Regex, w.expr)
		}
		if _, ok := r.rest.Config.Rules[w.id]; ok {
			t.Errorf("%s is also among the rules run over whole strings", w.id)
		}
	}
	if len(r.rest.Config.Rules) < 200 {
		t.Errorf("split: %d rules run over whole strings", len(r.rest.Config.Rules))
	}
}
