package lab

import (
	"fmt"
	"io"
	"strings"

	"github.com/resilience-playground/playground/param"
)

// WriteMarkdown writes the parameters of labs as Markdown: a section per lab, its title and
// introduction, and a table of its parameters — name, kind, default, range, help — from the
// declarations the server parses URLs with. docs/parameters.md is its output (`playground help
// -format markdown`), and CI fails when the committed file is not what the declarations give,
// so the tables a reader sees cannot drift from what the server accepts.
func WriteMarkdown(w io.Writer, labs []*Lab) error {
	var b strings.Builder
	b.WriteString("# Parameters\n\n")
	b.WriteString("Generated from the labs' declarations by `playground help -format markdown`; do not edit.\n")
	for _, l := range labs {
		fmt.Fprintf(&b, "\n## `/%s` — %s\n\n%s\n\n", l.Name, l.Title, l.Intro)
		b.WriteString("| name | kind | default | range | meaning |\n|---|---|---|---|---|\n")
		for _, sp := range l.Params {
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", sp.Name, sp.Kind, sp.Default, cell(rangeOf(sp)), cell(sp.Help))
		}
		if len(l.Rules) > 0 {
			b.WriteString("\nRules across parameters (a query that breaks one gets an error naming its parameters):\n\n")
			for _, r := range l.Rules {
				fmt.Fprintf(&b, "- %s (`?%s` breaks it)\n", r.Text, r.Breaks)
			}
		}
		if len(l.RefusedEnds) > 0 {
			fmt.Fprintf(&b, "\nRefused at the other defaults for the work or memory they need (with a value that fits): `%s`.\n",
				strings.Join(l.RefusedEnds, "`, `"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes the text of a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// rangeOf writes what a parameter takes.
func rangeOf(sp param.Spec) string {
	num := func(x float64) string {
		n := sp.Format(x)
		if sp.Kind == param.Duration {
			return n
		}
		if sp.Unit != "" && strings.ContainsAny(sp.Unit[:1], "abcdefghijklmnopqrstuvwxyz") {
			return n + " " + sp.Unit // 10 requests, but 10/s and 2×
		}
		return n + sp.Unit
	}
	switch sp.Kind {
	case param.Int, param.Float, param.Duration:
		return num(sp.Min) + "–" + num(sp.Max)
	case param.Enum, param.EnumList:
		opts := make([]string, len(sp.Options))
		for i, o := range sp.Options {
			opts[i] = fmt.Sprintf("`%s` (%s)", o, sp.OptionLabel(o))
		}
		if sp.Kind == param.EnumList {
			return "any of " + strings.Join(opts, ", ")
		}
		return "one of " + strings.Join(opts, ", ")
	case param.Bool:
		return "`true` or `false`"
	case param.IntRange:
		return fmt.Sprintf("`from:to:step` in %g–%g, at most %d points, or `off`", sp.Min, sp.Max, sp.MaxLen)
	}
	return ""
}
