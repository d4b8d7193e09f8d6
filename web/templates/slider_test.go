package templates

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/resilience-playground/playground/param"
)

// TestLogSliderConformance holds the server's position of a value on a logarithmic slider to
// the "sliders" vectors of param/testdata/conformance.json, which the page's toSlider
// (js/params.js) runs in Chromium (e2e.TestParamsConformance).
func TestLogSliderConformance(t *testing.T) {
	b, err := os.ReadFile("../../param/testdata/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		LogSteps int `json:"log_steps"`
		Params   []struct {
			Name, Kind string
			Min, Max   float64
			Log        bool
		} `json:"params"`
		Sliders []struct {
			Param, Raw string
			Pos        float64
		} `json:"sliders"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.LogSteps != LogSteps || len(c.Sliders) == 0 {
		t.Fatalf("log_steps %d (want %d), %d slider vectors", c.LogSteps, LogSteps, len(c.Sliders))
	}
	for _, v := range c.Sliders {
		for _, p := range c.Params {
			if p.Name != v.Param {
				continue
			}
			if !p.Log {
				t.Fatalf("%s: not a logarithmic slider", p.Name)
			}
			var x float64
			if p.Kind == "duration" {
				d, err := time.ParseDuration(v.Raw)
				if err != nil {
					t.Fatal(err)
				}
				x = float64(d) / float64(time.Millisecond)
			} else if x, err = strconv.ParseFloat(v.Raw, 64); err != nil {
				t.Fatal(err)
			}
			if got := logPos(param.Spec{Min: p.Min, Max: p.Max}, x); got != v.Pos {
				t.Errorf("%s=%s: position %v, the vector says %v", v.Param, v.Raw, got, v.Pos)
			}
		}
	}
}
