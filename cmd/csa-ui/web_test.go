package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// serve starts csa serve --ui --json and returns the URL it printed.
func serve(t *testing.T, w *world) (url, token string) {
	cmd := w.cmd("serve", "--ui", "--json")
	out, err := cmd.StdoutPipe()
	must(t, err)
	cmd.Stderr = os.Stderr
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var got struct{ URL, Token string }
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &got) != nil || !strings.HasPrefix(got.URL, "http://127.0.0.1:") || got.Token == "" {
		t.Fatalf("csa serve --ui --json printed %q (%v)", line, err)
	}
	return got.URL, got.Token
}

// TestServeRefusesOtherAddressesAndRequestsWithoutTheToken: the web view
// listens on loopback only, and answers nothing without its token.
func TestServeRefusesOtherAddressesAndRequestsWithoutTheToken(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"serve", "--ui", "--addr", "0.0.0.0:0"}, {"serve", "--ui", "--addr", "192.168.1.10:8080"},
		{"serve", "--ui", "--addr", "example.com:80"}, {"serve"}} {
		out, err := w.cmd(args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("csa %s: %v, want exit 2\n%s", strings.Join(args, " "), err, out)
		}
	}
	url, token := serve(t, w)
	base := strings.TrimSuffix(url, "/?token="+token)
	for _, c := range []struct {
		method, path, host string
		want               int
	}{
		{"GET", "/", "", 403}, {"GET", "/?token=nope", "", 403}, {"GET", "/api/sessions", "", 403},
		{"GET", "/api/events", "", 403}, {"POST", "/api/kill", "", 403}, {"GET", "/app.js", "", 403},
		{"GET", "/?token=" + token, "", 200}, {"GET", "/api/sessions?token=" + token, "", 200},
		{"GET", "/app.js?token=" + token, "", 200},
		// DNS rebinding: a page of another site that resolves to 127.0.0.1.
		{"GET", "/api/sessions?token=" + token, "evil.example:80", 403},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s %s (host %q): %d, want %d", c.method, c.path, c.host, res.StatusCode, c.want)
		}
	}
}

// chromium is Debian's chromium, which .ci/run installs: missing, the test
// fails under CI and is skipped elsewhere.
func chromium(t *testing.T) string {
	for _, p := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed: .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// TestWebViewShowsTheFleetAndActs: the page in headless Chromium shows
// every session in its class with its symbol, the child under its parent,
// live state changes, the filter, a session's log as it grows, send and
// kill; its screenshot shows the classes' colours.
func TestWebViewShowsTheFleetAndActs(t *testing.T) {
	path := chromium(t)
	w := newWorld(t)
	f := newFixture(t, w)
	url, _ := serve(t, w)

	actx, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Headless, chromedp.DisableGPU, chromedp.WindowSize(1400, 900), chromedp.UserDataDir(filepath.Join(w.dir, "chromium")))
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	// kill asks for a confirmation: accept it.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	must(t, chromedp.Do(ctx, chromedp.Navigate(url)))

	// rows reads what the page shows: each session's class, state cell,
	// indentation and last line.
	type row struct {
		Class, State, Last, Retry string
		Indent                    float64
	}
	rows := func() map[string]row {
		js := `Object.fromEntries([...document.querySelectorAll("tr.row")].map(tr => [tr.dataset.id, {
			Class: tr.dataset.class, State: tr.cells[0].textContent, Last: tr.querySelector("td.last").textContent, Retry: tr.cells[7].textContent,
			Indent: parseFloat(tr.cells[1].style.paddingLeft) || 0}]))`
		out, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]row](js))
		if err != nil {
			t.Fatalf("reading the page: %v", err)
		}
		return out
	}
	want := map[string]string{
		f.done: "= done", f.killed: "= done", f.failed: "x failed", f.working: "> working", f.retrying: "> working", f.parent: "> working",
		f.child: "> working", f.needsInput: "! needs input", f.idle: "- idle", f.stuck: "# stuck", f.unknown: "? unknown",
	}
	until(t, "every session in its class on the page", func() (bool, string) {
		got := rows()
		for id, state := range want {
			if got[id].State != state {
				return false, fmt.Sprint(got)
			}
		}
		return got[f.retrying].Retry == "r2", fmt.Sprint(got)
	})
	got := rows()
	if got[f.child].Indent <= got[f.parent].Indent || !strings.Contains(got[f.needsInput].Last, "first answer") {
		t.Fatalf("tree or last line: %+v", got)
	}

	// The screenshot: the page drawn, with the colour of needs input.
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(t, err)
	shotPath := filepath.Join(w.dir, "csa-serve-ui.png")
	must(t, os.WriteFile(shotPath, shot, 0o600))
	if keep := os.Getenv("CSA_UI_SCREENSHOT"); keep != "" { // to look at it
		must(t, os.WriteFile(keep, shot, 0o644))
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	b := img.Bounds()
	amber, colours := 0, map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
			if near(r>>8, 0xb5) && near(g>>8, 0x89) && near(bl>>8, 0x00) {
				amber++
			}
		}
	}
	if b.Dx() < 800 || len(colours) < 10 || amber == 0 {
		t.Fatalf("screenshot %s: %dx%d, %d colours, %d pixels of needs input's amber", shotPath, b.Dx(), b.Dy(), len(colours), amber)
	}

	// A state change arrives by itself.
	start := time.Now()
	w.csa(t, "send", f.idle, "--text", "echo now answered", "--enter")
	until(t, "the idle session needing input on the page", func() (bool, string) {
		r := rows()[f.idle]
		return r.Class == "needs_input" && strings.Contains(r.Last, "now answered"), fmt.Sprint(r)
	})
	t.Logf("the page showed the state change %s after csa send", time.Since(start).Round(time.Millisecond))

	// Folding a subtree, and unfolding it.
	toggle := chromedp.CSS(`tr[data-id="` + f.parent + `"] .toggle`)
	must(t, chromedp.Do(ctx, chromedp.Click(toggle)))
	until(t, "the child folded away", func() (bool, string) {
		got := rows()
		_, child := got[f.child]
		return !child, fmt.Sprint(got)
	})
	must(t, chromedp.Do(ctx, chromedp.Click(toggle)))
	until(t, "the child shown again", func() (bool, string) {
		got := rows()
		_, child := got[f.child]
		return child, fmt.Sprint(got)
	})

	// The filter.
	must(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#filter"), "stuck")))
	until(t, "the filter", func() (bool, string) {
		got := rows()
		_, stuck := got[f.stuck]
		return len(got) == 1 && stuck, fmt.Sprint(got)
	})
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(f => { f.value = ""; return f.dispatchEvent(new Event("input")) })(document.getElementById("filter"))`))
	must(t, err)

	// A session's log as it grows; send.
	text := func(sel string) string {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		must(t, err)
		return s
	}
	// A click whose press and release straddle a redraw of the rows (an
	// update arriving meanwhile, as on a busy machine) still chooses the
	// row: it was lost, the log never shown.
	at, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(r => [r.left + r.width / 2, r.top + r.height / 2])(document.querySelector('tr[data-id="`+f.needsInput+`"]').getBoundingClientRect())`))
	must(t, err)
	mouse := func(typ input.DispatchMouseEventType) {
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: at[0], Y: at[1], Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1})
		must(t, err)
	}
	mouse(input.DispatchMouseEventTypeMousePressed)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`render(), true`))
	must(t, err)
	mouse(input.DispatchMouseEventTypeMouseReleased)
	until(t, "the log", func() (bool, string) { s := text("#log"); return strings.Contains(s, "first answer"), s })
	must(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#send-text"), "echo typed in the page"), chromedp.Click(chromedp.CSS("#send"))))
	until(t, "the answer in the log", func() (bool, string) {
		s := text("#log")
		return strings.Contains(s, "first answer") && strings.Contains(s, "typed in the page"), s
	})

	// Kill (confirmed).
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr[data-id="`+f.working+`"]`)), chromedp.Click(chromedp.CSS("#kill"))))
	until(t, "the session killed on the page", func() (bool, string) {
		r := rows()[f.working]
		return r.Class == "done", fmt.Sprint(r)
	})
	if st := w.state(t, f.working); st != "killed" {
		t.Fatalf("csa says %s is %s, want killed", f.working, st)
	}
}

func near(a, b uint32) bool { return a+24 >= b && a <= b+24 }
