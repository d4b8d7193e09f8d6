package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// TestSliderKeysOneEntry presses an arrow key four times in a row on a slider: the value moves
// four steps, the presses make ONE history entry (as a drag from press to release does), and
// Back returns to the value before them.
func TestSliderKeysOneEntry(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=2&sweep=off")
	waitDrawn(t, ctx)
	orig := textValue(t, ctx, "clients")
	before := eval[int](t, ctx, `history.length`)
	sendKeys(t, ctx, rangeSel("clients"), strings.Repeat(kb.ArrowRight, 4))
	moved := textValue(t, ctx, "clients")
	if moved == orig {
		t.Fatalf("four arrow presses left clients at %s", orig)
	}
	waitFor(t, ctx, `new URLSearchParams(location.search).get("clients") === "`+moved+`"`)
	if n := eval[int](t, ctx, `history.length`) - before; n != 1 {
		t.Errorf("four presses in a row made %d history entries, want 1", n)
	}
	eval[bool](t, ctx, `(history.back(), true)`)
	waitFor(t, ctx, `document.querySelector('input.value[name="clients"]').value === "`+orig+`"`)
	t.Logf("clients %s → %s by four presses; Back → %s", orig, moved, orig)
}
