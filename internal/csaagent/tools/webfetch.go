package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// WebFetch limits.
const (
	fetchTimeout  = 30 * time.Second
	fetchMaxBytes = 5 << 20
	fetchMaxText  = 100000
)

// WebFetch fetches a URL and returns its text.
type WebFetch struct{ base[webFetchInput] }

// NewWebFetch is the WebFetch tool.
func NewWebFetch() *WebFetch {
	return &WebFetch{base[webFetchInput]{"WebFetch", webFetchDesc}}
}

type webFetchInput struct {
	URL    string `json:"url" jsonschema:"The URL to fetch content from" jsonschema_extras:"format=uri"`
	Prompt string `json:"prompt" jsonschema:"The prompt to run on the fetched content"`
}

const webFetchDesc = `- Fetches content from a specified URL (http or https GET) and returns it as text, for you to process with your prompt
- Takes a URL and a prompt as input; unlike some tools of this name, no separate model reads the page here: the result is the page's text (HTML reduced to text, capped at 100000 characters) followed by your prompt echoed back, and YOU answer the prompt from that text
- Use this tool when you need to retrieve and analyze web content
- The URL must be a fully-formed valid URL; requests time out after 30 seconds and bodies over 5 MB are cut
- When a URL redirects to a different host, the tool says so and gives the redirect URL: make a new WebFetch request with it
- This tool is read-only and does not modify any files
- For GitHub URLs, prefer the gh CLI via Bash where available (gh pr view, gh issue view, gh api)`

func (*WebFetch) ConcurrencySafe(json.RawMessage) bool { return true }
func (*WebFetch) ReadOnly(json.RawMessage) bool        { return true }
func (*WebFetch) Subject(in json.RawMessage) string    { return field(in, "url") }

// errRedirect stops a redirect to another host: permission rules were
// checked against the first URL's host only.
type errRedirect struct{ to string }

func (e errRedirect) Error() string { return "redirect to " + e.to }

// fetchClient is the HTTP client WebFetch uses; tests may replace it.
var fetchClient = &http.Client{
	Timeout: fetchTimeout,
	CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		if req.URL.Host != via[0].URL.Host {
			return errRedirect{req.URL.String()}
		}
		return nil
	},
}

func (w *WebFetch) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := w.parse(input)
	if !ok {
		return bad, nil
	}
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return tool.Errorf("invalid URL %q: need an absolute http or https URL", in.URL), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tool.Errorf("invalid URL %q: %v", in.URL, err), nil
	}
	req.Header.Set("User-Agent", "csa-agent (WebFetch)")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5")
	resp, err := fetchClient.Do(req)
	if err != nil {
		var redir errRedirect
		if errors.As(err, &redir) {
			return tool.Result{Output: fmt.Sprintf("REDIRECT DETECTED: %s redirects to a different host: %s\nTo fetch it, make a new WebFetch request with url %q.", u, redir.to, redir.to)}, nil
		}
		return tool.Errorf("fetch %s: %v", u, err), nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes))
	if err != nil {
		return tool.Errorf("fetch %s: reading body: %v", u, err), nil
	}
	ctype := resp.Header.Get("Content-Type")
	text := string(body)
	if strings.Contains(ctype, "html") || ctype == "" && looksHTML(text) {
		text = htmlText(text)
	} else if isBinary(body[:min(len(body), 8000)]) {
		return tool.Errorf("fetch %s: %s is binary content (%d bytes)", u, ctype, len(body)), nil
	}
	text = truncate(strings.ToValidUTF8(text, "\uFFFD"), fetchMaxText)
	res := tool.Result{Output: fmt.Sprintf("Fetched %s (HTTP %d, %s, %d bytes).\n\n<content>\n%s\n</content>\n\nAnswer this prompt from the content above: %s", u, resp.StatusCode, ctype, len(body), text, in.Prompt)}
	if resp.StatusCode >= 400 {
		res.IsError = true
	}
	return res, nil
}

func looksHTML(s string) bool {
	head := strings.ToLower(s[:min(len(s), 512)])
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

var (
	reDropBlocks = regexp.MustCompile(`(?is)<(script|style|noscript|svg|head|template)\b.*?</(script|style|noscript|svg|head|template)\s*>|<!--.*?-->`)
	reBreak      = regexp.MustCompile(`(?i)<(br|/p|/div|/h[1-6]|/li|/tr|/pre|/blockquote|/section|/article|/header|/footer|hr)\b[^>]*>`)
	reItem       = regexp.MustCompile(`(?i)<li\b[^>]*>`)
	reHeading    = regexp.MustCompile(`(?i)<h([1-6])\b[^>]*>`)
	reTag        = regexp.MustCompile(`(?s)<[^>]*>`)
	reSpaces     = regexp.MustCompile(`[ \t\f\v\r]+`)
	reBlank      = regexp.MustCompile(`\n\s*\n\s*\n+`)
)

// htmlText reduces HTML to readable text: scripts and styles dropped,
// block ends as newlines, headings and list items marked as markdown.
func htmlText(s string) string {
	s = reDropBlocks.ReplaceAllString(s, "")
	s = reHeading.ReplaceAllStringFunc(s, func(m string) string {
		return "\n" + strings.Repeat("#", int(reHeading.FindStringSubmatch(m)[1][0]-'0')) + " "
	})
	s = reItem.ReplaceAllString(s, "\n- ")
	s = reBreak.ReplaceAllString(s, "\n")
	s = reTag.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = reSpaces.ReplaceAllString(s, " ")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	s = strings.Join(out, "\n")
	return strings.TrimSpace(reBlank.ReplaceAllString(s, "\n\n"))
}
