package web

// Palette is the one declaration of the series styles, used by the page's scripts (sent in
// the lab's spec), the PNG export (which draws the page's canvases) and the SVG previews.
//
// Places 0, 1, 2… go to the options of a view's key parameter in order, then to other
// labels. Colours are chosen to stay distinct for the common colour-vision deficiencies
// (simulated protanopia, deuteranopia and tritanopia: every pair at least 20 CIELAB ΔE apart)
// and to have at least 3:1 contrast against the page, light or dark (palette_test.go); every
// place also has its own dash pattern, so that series can be told apart without colour.
// References beside the compared things (an exact count, a limit, the offered load: a
// series of Tone neutral, or any label that is no option where options are compared) are
// drawn in greys of at least 3:1 contrast, each with its own dash.
var Palette = struct {
	Light     []string `json:"light"`      // series colours on the light page
	Dark      []string `json:"dark"`       // the same places on the dark page
	Dashes    [][]int  `json:"dashes"`     // dash pattern of each place (px on, px off…); [] is solid
	DashNames []string `json:"dash_names"` // the dashes in words, for screen readers
	Ref       []string `json:"ref"`        // reference greys on the light page
	RefDark   []string `json:"ref_dark"`   // reference greys on the dark page
	RefDashes [][]int  `json:"ref_dashes"` // dash of the first, second… reference in a chart
}{
	Light:     []string{"#0072B2", "#D55E00", "#000000", "#8811FF", "#996666", "#771100", "#550055"},
	Dark:      []string{"#56B4E9", "#E69F00", "#F2F2F2", "#BC62F8", "#838228", "#D3AA99", "#86A8B6"},
	Dashes:    [][]int{{}, {8, 4}, {2, 3}, {10, 3, 2, 3}, {16, 4}, {6, 3, 2, 3, 2, 3}, {4, 6}},
	DashNames: []string{"solid", "dashed", "dotted", "dash-dot", "long dash", "dash-dot-dot", "sparse dash"},
	Ref:       []string{"#5f5f5f", "#8a8a8a"},
	RefDark:   []string{"#a3a3a3", "#7d7d7d"},
	RefDashes: [][]int{{}, {2, 3}, {12, 4}},
}

// Style is how the series of one place are drawn: a colour for each theme and a dash.
type Style struct {
	Light    string `json:"light"`
	Dark     string `json:"dark"`
	Dash     []int  `json:"dash"`
	DashName string `json:"dash_name"`
}

// Styles returns the styles of places 0 to n−1. Place i takes colour i mod c (c colours) and
// a dash that shifts by one more every c places, (i + ⌊i/c⌋) mod d (d dashes): no two of the
// first c·d places (49) share both colour and dash, so that however many options a lab
// compares, and whatever parameters label its series (lab.View.Places), no two series of a
// chart look alike. The page draws place i in style i; the SVG previews use the same colours.
func Styles(n int) []Style {
	c, d := len(Palette.Light), len(Palette.Dashes)
	out := make([]Style, n)
	for i := range out {
		k := (i + i/c) % d
		out[i] = Style{Light: Palette.Light[i%c], Dark: Palette.Dark[i%c], Dash: Palette.Dashes[k], DashName: Palette.DashNames[k]}
	}
	return out
}
