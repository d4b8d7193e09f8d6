package lab

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes r's series as CSV: one row per point, with columns series, chart, label,
// x, y, x_unit, y_unit.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"series", "chart", "label", "x", "y", "x_unit", "y_unit"}); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, s := range r.Series {
		for i := range s.X {
			if err := cw.Write([]string{s.Name, s.Chart, s.Label, f(s.X[i]), f(s.Y[i]), s.XUnit, s.YUnit}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
