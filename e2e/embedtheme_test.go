package e2e

import (
	"strings"
	"testing"
)

// embedLook is how an embed view shows: its background, the first legend swatch's colour, the
// address and the errors it shows.
type embedLook struct {
	Bg, Swatch, Search, Errors string
}

const readEmbedLook = `({ Bg: getComputedStyle(document.body).backgroundColor,
	Swatch: document.querySelector(".chart .legend li svg :is(line, rect)")?.getAttribute("stroke") ?? "",
	Search: location.search, Errors: document.getElementById("url-errors").textContent.trim() })`

// TestEmbedTheme: an embed takes its theme from its URL (theme=light|dark), whatever the
// viewer's setting, and follows the viewer's setting without one (issue 30, item 14: embeds
// followed the viewer's dark setting inside light slides). Its charts' colours are the
// theme's; the address keeps the theme; a theme other than light or dark is an error on the
// page naming it, and the viewer's setting holds.
func TestEmbedTheme(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	const scenario = "/embed/backoff?clients=5&trials=2&sweep=off"
	look := func(scheme, page string) embedLook {
		t.Helper()
		emulateScheme(t, ctx, scheme)
		openLab(t, ctx, srv.URL+page)
		waitDrawn(t, ctx)
		return eval[embedLook](t, ctx, readEmbedLook)
	}
	light := look("light", scenario)
	dark := look("dark", scenario)
	if light.Bg == dark.Bg || light.Swatch == dark.Swatch {
		t.Fatalf("the viewer's setting does not change the embed: light %+v, dark %+v", light, dark)
	}
	for _, c := range []struct {
		scheme, theme string
		want          embedLook
	}{
		{"dark", "light", light},
		{"light", "dark", dark},
		{"dark", "dark", dark},
		{"light", "light", light},
	} {
		got := look(c.scheme, scenario+"&theme="+c.theme)
		if got.Bg != c.want.Bg || got.Swatch != c.want.Swatch {
			t.Errorf("theme=%s seen with a %s setting: background %s, first series %s; want %s, %s", c.theme, c.scheme, got.Bg, got.Swatch, c.want.Bg, c.want.Swatch)
		}
		if !strings.Contains(got.Search, "theme="+c.theme) || got.Errors != "" {
			t.Errorf("theme=%s: address %q, errors %q; want the theme kept and no error", c.theme, got.Search, got.Errors)
		}
	}
	bad := look("dark", scenario+"&theme=blue")
	if !strings.Contains(bad.Errors, "theme") || !strings.Contains(bad.Errors, "light or dark") || bad.Bg != dark.Bg {
		t.Errorf("theme=blue: errors %q, background %s; want an error naming theme and the viewer's dark setting", bad.Errors, bad.Bg)
	}
}
