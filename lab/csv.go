package lab

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// WriteCSV writes r's series as CSV: one row per point, with columns series, chart, label,
// x, y, x_unit, y_unit and scenario, the canonical URL of the run (r.URL), so that a file
// opened on its own says which scenario it holds and where to see it live.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"series", "chart", "label", "x", "y", "x_unit", "y_unit", "scenario"}); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, s := range r.Series {
		for i := range s.X {
			if err := cw.Write([]string{s.Name, s.Chart, s.Label, f(s.X[i]), f(s.Y[i]), s.XUnit, s.YUnit, r.URL}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// maxFileName bounds a download's name before its extension (file systems take 255 bytes).
const maxFileName = 150

// FileName is the name of a download of the scenario at the canonical URL url
// ("/ratelimit?limit=50&algorithms=gcra,fixed_window"), with extension ext: the lab, then its
// parameters that differ from the defaults ("ratelimit_limit-50_algorithms-gcra+fixed_window.csv"),
// or "default" ("ratelimit_default.csv"), in letters, digits and ._+- only, at most
// maxFileName characters before the extension. The page names its downloads (JSON, PNG) the
// same way (web/static/js/export.js fileName), so that files saved from one scenario sort
// together and say which it is.
func FileName(url, ext string) string {
	path, query, _ := strings.Cut(url, "?")
	name := strings.Trim(path, "/")
	if query == "" {
		name += "_default"
	} else {
		name += "_" + strings.NewReplacer("=", "-", "&", "_").Replace(query)
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '+':
			return r
		}
		return '+'
	}, name)
	if len(name) > maxFileName {
		name = name[:maxFileName]
	}
	return name + "." + ext
}
