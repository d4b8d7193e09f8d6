package web

import (
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allHex is every colour of a list, checked to be written #rrggbb.
func allHex(tb testing.TB, list []string) []string {
	tb.Helper()
	for _, h := range list {
		if !regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`).MatchString(h) {
			tb.Fatalf("colour %q is not #rrggbb", h)
		}
	}
	return list
}

// TestPaletteReadable checks the series colours (Palette.Light): each has at least 3:1
// contrast against the white page, and every pair stays distinct — at least 20 CIELAB ΔE
// apart — for normal vision and simulated protanopia, deuteranopia and tritanopia (Machado,
// Oliveira and Fernandes 2009, severity 1).
func TestPaletteReadable(t *testing.T) {
	hexes := allHex(t, Palette.Light)
	if len(hexes) < 7 {
		t.Fatalf("%d colours, want at least 7 (one per option of the largest key)", len(hexes))
	}
	for _, h := range slices.Concat(hexes, allHex(t, Palette.Ref)) {
		if c := contrast(h); c < 3 {
			t.Errorf("%s has %.2f:1 contrast against white, want at least 3:1", h, c)
		}
	}
	if len(Palette.Dark) != len(hexes) || len(Palette.Dashes) != len(hexes) || len(Palette.DashNames) != len(hexes) || len(Palette.RefDark) != len(Palette.Ref) {
		t.Errorf("the palette's lists differ in length: %d light, %d dark, %d dashes, %d dash names; %d and %d reference greys",
			len(hexes), len(Palette.Dark), len(Palette.Dashes), len(Palette.DashNames), len(Palette.Ref), len(Palette.RefDark))
	}
	vision := map[string][3][3]float64{
		"normal":       {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		"protanopia":   {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
		"deuteranopia": {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
		"tritanopia":   {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}},
	}
	for name, mat := range vision {
		worst, pair := math.Inf(1), ""
		for i := range hexes {
			for j := i + 1; j < len(hexes); j++ {
				if d := deltaE(lab(simulate(hexes[i], mat)), lab(simulate(hexes[j], mat))); d < worst {
					worst, pair = d, hexes[i]+" and "+hexes[j]
				}
			}
		}
		if worst < 20 {
			t.Errorf("%s: %s are only %.1f ΔE apart, want at least 20", name, pair, worst)
		}
		t.Logf("%s: closest pair %s, %.1f ΔE", name, pair, worst)
	}
}

func linear(hex string) [3]float64 {
	var c [3]float64
	for i := range 3 {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		x := float64(v) / 255
		if x <= 0.04045 {
			c[i] = x / 12.92
		} else {
			c[i] = math.Pow((x+0.055)/1.055, 2.4)
		}
	}
	return c
}

func contrast(hex string) float64 {
	c := linear(hex)
	l := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	return 1.05 / (l + 0.05)
}

func simulate(hex string, m [3][3]float64) [3]float64 {
	c := linear(hex)
	var o [3]float64
	for i := range 3 {
		o[i] = math.Max(0, math.Min(1, m[i][0]*c[0]+m[i][1]*c[1]+m[i][2]*c[2]))
	}
	return o
}

func lab(c [3]float64) [3]float64 {
	x := (0.4124*c[0] + 0.3576*c[1] + 0.1805*c[2]) / 0.95047
	y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	z := (0.0193*c[0] + 0.1192*c[1] + 0.9505*c[2]) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

func deltaE(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// TestDarkPaletteReadable checks the dark theme's series colours (Palette.Dark) against the dark page of app.css: each has at least 3:1 contrast against its
// background, and every pair stays at least 20 CIELAB ΔE apart for normal vision and the
// three simulated deficiencies, as on the light page. The dark theme's text, too, has at least
// 4.5:1 contrast.
func TestDarkPaletteReadable(t *testing.T) {
	css, err := fs.ReadFile(Static, "app.css")
	if err != nil {
		t.Fatal(err)
	}
	hexes := allHex(t, Palette.Dark)
	if len(hexes) < 7 {
		t.Fatalf("%d dark colours, want at least 7 (one per option of the largest key)", len(hexes))
	}
	dark := regexp.MustCompile(`(?s)@media \(prefers-color-scheme: dark\) \{\s*:root:not\(\[data-theme=light\]\) \{([^}]*)\}`).FindSubmatch(css)
	if dark == nil {
		t.Fatal("app.css has no :root block for prefers-color-scheme: dark")
	}
	// An embed's theme=dark (html[data-theme=dark]) gives the same colours.
	fixed := regexp.MustCompile(`(?s)\n:root\[data-theme=dark\] \{([^}]*)\}`).FindSubmatch(css)
	if fixed == nil || !strings.HasPrefix(strings.Join(strings.Fields(string(fixed[1])), " "), strings.Join(strings.Fields(string(dark[1])), " ")) {
		t.Errorf("app.css's :root[data-theme=dark] block does not hold the dark theme's values")
	}
	vars := map[string]string{}
	for _, v := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9A-Fa-f]{6})`).FindAllSubmatch(dark[1], -1) {
		vars[string(v[1])] = string(v[2])
	}
	bg := vars["bg"]
	if bg == "" || luminance(bg) > 0.05 {
		t.Fatalf("dark --bg = %q, want a dark colour", bg)
	}
	for _, h := range slices.Concat(hexes, allHex(t, Palette.RefDark)) {
		if c := contrastOn(h, bg); c < 3 {
			t.Errorf("%s has %.2f:1 contrast against the dark page %s, want at least 3:1", h, c, bg)
		}
	}
	for _, name := range []string{"fg", "muted", "accent", "bad"} {
		if c := contrastOn(vars[name], bg); c < 4.5 {
			t.Errorf("dark --%s %s has %.2f:1 contrast against %s, want at least 4.5:1", name, vars[name], c, bg)
		}
	}
	for _, mat := range visions {
		worst, pair := math.Inf(1), ""
		for i := range hexes {
			for j := i + 1; j < len(hexes); j++ {
				if d := deltaE(lab(simulate(hexes[i], mat.m)), lab(simulate(hexes[j], mat.m))); d < worst {
					worst, pair = d, hexes[i]+" and "+hexes[j]
				}
			}
		}
		if worst < 20 {
			t.Errorf("%s: %s are only %.1f ΔE apart, want at least 20", mat.name, pair, worst)
		}
	}
}

// visions are the colour-vision simulations (Machado, Oliveira and Fernandes 2009, severity 1).
var visions = []struct {
	name string
	m    [3][3]float64
}{
	{"normal", [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
	{"protanopia", [3][3]float64{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}},
	{"deuteranopia", [3][3]float64{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}},
	{"tritanopia", [3][3]float64{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}},
}

func luminance(hex string) float64 {
	c := linear(hex)
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

// contrastOn is the WCAG contrast ratio of two colours.
func contrastOn(a, b string) float64 {
	x, y := luminance(a), luminance(b)
	if x < y {
		x, y = y, x
	}
	return (x + 0.05) / (y + 0.05)
}

// TestStylesDistinct: the first colours × dashes places of Styles differ pairwise in colour or
// in dash, light and dark, and the dashes differ pairwise in pattern and in name.
func TestStylesDistinct(t *testing.T) {
	n := len(Palette.Light) * len(Palette.Dashes)
	if n < 16 {
		t.Fatalf("%d distinct styles, want at least 16", n)
	}
	styles := Styles(n)
	seen := map[string]int{}
	for i, s := range styles {
		for _, colour := range []string{s.Light, "dark " + s.Dark} {
			k := fmt.Sprint(colour, s.Dash)
			if j, ok := seen[k]; ok && j != i {
				t.Errorf("places %d and %d are both %s", j, i, k)
			}
			seen[k] = i
		}
	}
	for i := range Palette.Dashes {
		for j := i + 1; j < len(Palette.Dashes); j++ {
			if slices.Equal(Palette.Dashes[i], Palette.Dashes[j]) || Palette.DashNames[i] == Palette.DashNames[j] {
				t.Errorf("dashes %d and %d alike: %v %q, %v %q", i, j, Palette.Dashes[i], Palette.DashNames[i], Palette.Dashes[j], Palette.DashNames[j])
			}
		}
	}
}
