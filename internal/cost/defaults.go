package cost

// Checked is when the built-in prices were last checked against the
// providers' public list prices (see docs/cost.md for where they come
// from). A model csa does not know the price of is left out: its sessions
// show tokens and "price unknown".
const Checked = "2025-11-24"

// builtin is USD per million tokens, at the standard (not batch, not
// long-context) rate. OpenAI and Google charge nothing extra to write their
// caches, so a cache write costs what input does.
var builtin = map[string]Price{
	// Anthropic: Claude Code's and csa-agent's models. Those of 2026
	// (Opus 4.8 — Claude Code 2.1.197's default —, Opus 5 and 5.5, Sonnet
	// 5 and 5.5) were checked on 2026-11-29 against their model pages on
	// platform.claude.com (input, output, 5-minute cache write, cache
	// read); Opus 4.8's page gives input and output only, its cache prices
	// are Opus 4.5's and 5's, the same tier.
	"claude-opus-4-8":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-5":     {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-5-5":   {Input: 4, Output: 20, CacheRead: 0.20, CacheWrite: 5},
	"claude-sonnet-5":   {Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50},
	"claude-sonnet-5-5": {Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50},
	"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-1":   {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-3-7-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1},

	// OpenAI: Codex's models.
	"gpt-5":              {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gpt-5-codex":        {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gpt-5.1":            {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gpt-5.1-codex":      {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gpt-5.1-codex-max":  {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gpt-5-mini":         {Input: 0.25, Output: 2, CacheRead: 0.025, CacheWrite: 0.25},
	"gpt-5.1-codex-mini": {Input: 0.25, Output: 2, CacheRead: 0.025, CacheWrite: 0.25},
	"gpt-5-nano":         {Input: 0.05, Output: 0.40, CacheRead: 0.005, CacheWrite: 0.05},
	"gpt-4.1":            {Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2},
	"o3":                 {Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2},
	"o4-mini":            {Input: 1.10, Output: 4.40, CacheRead: 0.275, CacheWrite: 1.10},

	// Google: Gemini CLI's models, at the rate for prompts up to 200k
	// tokens.
	"gemini-2.5-pro":        {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gemini-2.5-flash":      {Input: 0.30, Output: 2.50, CacheRead: 0.03, CacheWrite: 0.30},
	"gemini-2.5-flash-lite": {Input: 0.10, Output: 0.40, CacheRead: 0.01, CacheWrite: 0.10},
	"gemini-3-pro-preview":  {Input: 2, Output: 12, CacheRead: 0.20, CacheWrite: 2},
}

// Default is the built-in table.
func Default() Table { return New(builtin, Checked) }
