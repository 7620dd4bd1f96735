package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/claudesettings"
	"github.com/csa-dev/csa/internal/csaagent/compact"
	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/hooks"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/providers"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/mcp"
	"github.com/csa-dev/csa/internal/csaagent/outputstyle"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/prompt"
	"github.com/csa-dev/csa/internal/csaagent/skills"
	"github.com/csa-dev/csa/internal/csaagent/statusline"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/subagent"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/csaagent/tools"
	"github.com/csa-dev/csa/internal/csaagent/transcript"
	"github.com/csa-dev/csa/internal/csaenv"
	csasession "github.com/csa-dev/csa/internal/session"
)

// session is one conversation being run: its parts, assembled.
type session struct {
	o    *options
	io   IO
	id   string
	spec string // the model as given: provider/model, or an alias
	// chosen is spec resolved (provider/model), what "inherit" and the
	// aliases of agents and skills are taken against; main is its
	// provider, which each turn starts on.
	chosen string
	main   llm.Provider
	model  string
	conf   providers.Conf
	// retries is the config's max_retries, for the other models' providers.
	retries int
	agent   *loop.Agent
	conv    *store.Conversation
	// transcript is the session in Claude Code's transcript format, for
	// hooks (transcript_path) and tools that read those.
	transcript *transcript.Session
	hooks      *hooks.Engine
	env        *tool.Env
	policy     *perm.Policy
	sink       event.Multi
	// result is the last main-agent result, for --output-format json.
	result    *event.Event
	compactor *compact.Compactor
	subagents *subagent.Hooks
	skills    *skills.Set
	// context is what SessionStart hooks gave, sent with the first prompt.
	context string
	// endReason is SessionEnd's reason.
	endReason string

	// A front end's turn in progress (threads.go), and the calls its
	// person allowed for the rest of the session.
	turnMu  sync.Mutex
	current *turnState
	granted map[string]bool
	mcp     *mcp.Manager
	// display is the Claude Code settings for what the user sees.
	display claudesettings.Settings
	// style is the selected output style (nil: none).
	style *outputstyle.Style
	// window is the model's context window, in tokens.
	window int64
	// status is the REPL's status line (nil: none), track its state.
	status *statusline.Status
	track  *statusState
}

func open(ctx context.Context, o *options, sio IO) (*session, error) {
	cfg, err := config.Load(config.Path(sio.Getenv))
	if err != nil {
		return nil, usageError{err}
	}
	s := &session{o: o, io: sio, track: &statusState{started: time.Now()}}
	configured := []string{o.model, sio.Getenv(csaenv.AgentModel), cfg.Model}
	s.spec = firstOf(configured...)
	if s.spec == "" {
		return nil, usagef("no model: give --model provider/model (e.g. anthropic/claude-sonnet-4-5) or set model in %s", config.Path(sio.Getenv))
	}
	s.conf, s.retries = providerConf(cfg), cfg.MaxRetries
	choice, err := providers.Choose(s.spec, homeModel(configured), s.conf, sio.Getenv)
	var noKey *providers.MissingKeyError
	switch {
	case errors.As(err, &noKey):
		return nil, err // not a usage error: the account's, class auth
	case err != nil:
		return nil, usageError{err}
	}
	prov, model := choice.Provider, choice.Model
	s.chosen = choice.Spec
	project := prompt.ProjectRoot(sio.Cwd)
	// Claude Code's project folder is where it starts, not the
	// repository's root: its settings files, a plugin's project install
	// and CLAUDE_PROJECT_DIR name the working directory.
	here := sio.Cwd
	plugins := loadPlugins(o, sio, here)
	// The agents and skills are read while the rest is set up: parsing
	// their front matter is most of a start's reading.
	agents := inBackground(func() loaded[[]subagent.Definition] {
		defs, err := subagent.Load(subagent.Sources{Managed: subagent.ManagedDir, Home: sio.Getenv("HOME"),
			ProjectRoot: project, Cwd: sio.Cwd, Plugins: plugins})
		return loaded[[]subagent.Definition]{defs, err}
	})
	skillSet := inBackground(func() loaded[*skills.Set] {
		set, err := skills.LoadWith(skills.Sources{Home: sio.Getenv("HOME"), ProjectRoot: project, Cwd: sio.Cwd}, plugins)
		return loaded[*skills.Set]{set, err}
	})
	settings, err := loadHooks(o, cfg, config.Path(sio.Getenv), sio.Getenv("HOME"), here, plugins, sio)
	if err != nil {
		return nil, usageError{err}
	}
	roots := rootsOf(sio.Cwd, append(cfg.AddDirs, o.addDirs...))
	if s.policy, err = policy(o, cfg, sio.Cwd, roots); err != nil {
		return nil, usageError{err}
	}
	mcpServers, err := loadMCP(o, cfg, sio, plugins)
	if err != nil {
		return nil, usageError{err}
	}
	// Everything the user could get wrong is checked: now the session
	// may be created.
	history, err := s.openStore(model)
	if err != nil {
		return nil, err
	}
	s.env = newEnv(sio.Cwd, roots, s.id)
	s.transcript = transcript.New(store.Dir(sio.Getenv), s.id, sio.Cwd)
	s.hooks, err = hooks.New(settings, hooks.Options{SessionID: s.id, TranscriptPath: s.transcript.Path(),
		SubagentTranscript: s.transcript.SubagentPath,
		Cwd:                sio.Cwd, ProjectDir: here, Mode: func() string { return string(s.policy.Mode()) },
		Environ: os.Environ(), Stderr: sio.Stderr, Wakeable: o.repl})
	if err != nil {
		return nil, err
	}
	var mcpStatus []event.MCPServer
	s.mcp, mcpStatus = startMCP(mcpServers, sio)
	s.sink = event.Multi{s.renderer(), s.conv, s.transcript, event.Func(s.keepResult), event.Func(s.toTurn),
		event.Func(s.track.observe)}
	fallback, err := fallbackModel(firstOf(o.fallbackModel, cfg.FallbackModel), s.chosen, prov, s.conf, sio.Getenv)
	if err != nil {
		return nil, usageError{err}
	}
	retrying := &llm.Retrying{Provider: prov, MaxRetries: cfg.MaxRetries, Fallback: fallback, OnRetry: s.onRetry}
	s.main, s.model = retrying, model
	ms := cfg.ModelSettings(s.chosen, model)
	if ms.ContextWindow == 0 && choice.Context1M {
		ms.ContextWindow = window1M
	}
	s.window = ms.ContextWindow
	if s.window == 0 {
		s.window = compact.DefaultWindow(model)
	}
	s.compactor = compact.New(compact.Config{Window: ms.ContextWindow, Threshold: ms.CompactAt,
		PreCompact: s.preCompact, Store: s.conv})
	externalImports := prompt.ExternalImportsApproved(mcp.ClaudeJSON(sio.Getenv("HOME"), sio.Getenv), project)
	s.display = displaySettings(o, sio)
	s.style = outputStyle(sio, project, s.display.OutputStyle, plugins)
	style := s.style
	s.newStatus()
	// The output style shapes the main agent's answers to the user; a
	// subagent answers its caller, as in Claude Code.
	styled := func(extra string, style *outputstyle.Style) string {
		return prompt.Build(prompt.Env{Cwd: sio.Cwd, Home: sio.Getenv("HOME"), Roots: s.env.Roots, Now: time.Now(),
			Mode: string(s.policy.Mode()), ExternalImports: externalImports, Extra: extra, Style: style})
	}
	system := func(extra string) string { return styled(extra, nil) }
	defs := agents()
	if defs.err != nil {
		// A broken definition leaves that one out; the others work.
		fmt.Fprintln(sio.Stderr, "csa-agent: subagents:", defs.err)
	}
	if o.agents != "" {
		flagDefs, err := subagent.ParseFlag(o.agents)
		if err != nil {
			fmt.Fprintln(sio.Stderr, "csa-agent: subagents:", err)
		}
		defs.v = subagent.WithFlag(defs.v, flagDefs, subagent.ManagedDir)
	}
	all := visibleTools(tools.All(), o.disallowed)
	s.skills = skillSet().v
	if err := skillSet().err; err != nil {
		// A broken file is left out; the others work.
		fmt.Fprintln(sio.Stderr, "csa-agent: skills:", err)
	}
	all = s.withSkillTool(all)
	s.subagents = subagent.NewHooks(subagent.Config{
		Definitions: defs.v,
		Tools:       all,
		System:      system,
		ResolveModel: func(spec string) (llm.Provider, string, error) {
			c, err := s.choose(spec)
			return c.Provider, c.Model, err
		},
		Compactor: func(string) loop.Compactor { return s.compactor },
		MaxTurns:  firstInt(o.maxTurns, cfg.MaxTurns),
		Getenv:    sio.Getenv,
		Modes:     modes{s.policy},
		Plans:     s.conv,
		OnStart:   s.hooks.SubagentStart,
		Record:    s.transcript.Message,
	})
	if err := s.subagents.Err(); err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent: subagents are not recorded in csa:", err)
	}
	s.env.Agent = s.subagents
	if contains(names(all), "Task") {
		all = tools.With(all, tools.NewTask(s.subagents.SubagentTypes()))
	}
	s.agent = loop.New(loop.Config{
		Provider:    retrying,
		Model:       model,
		Effort:      firstOf(o.effort, cfg.Effort),
		System:      styled("", style),
		Tools:       all,
		Dynamic:     s.mcp.Tools,
		Env:         s.env,
		Permit:      s.hooks.Permit(s.policy, s.ask),
		Hooks:       memoryOnRead{s.hooks, prompt.NewNestedMemory(sio.Getenv("HOME"), sio.Cwd, externalImports), sio.Cwd},
		Sink:        s.sink,
		MaxTurns:    firstInt(o.maxTurns, cfg.MaxTurns),
		TokenBudget: cfg.TokenBudget,
		Record:      s.record,
		Compactor:   s.compactor,
		Await:       s.subagents.Await,
	}, history)
	s.subagents.Attach(s.agent)
	s.sink.Emit(event.Event{Kind: event.Init, Time: time.Now(), SessionID: s.id, Model: model,
		Tools: append(names(all), names(s.mcp.Tools())...), Cwd: sio.Cwd, Mode: string(s.policy.Mode()), MCPServers: mcpStatus})
	source := map[bool]string{true: "resume", false: "startup"}[o.resume != ""]
	if o.cleared {
		source = "clear"
	}
	s.context = s.hooks.SessionStart(ctx, source)
	return s, nil
}

// openStore creates the session's conversation file, or reopens it and
// returns the conversation so far.
func (s *session) openStore(model string) (history []llm.Message, err error) {
	dir := store.Dir(s.io.Getenv)
	if s.o.resume != "" {
		s.id = s.o.resume
		s.conv, history, err = store.Open(dir, s.id)
		return history, err
	}
	s.id = s.o.sessionID
	if s.id == "" {
		s.id = csasession.NewUUID()
	}
	s.conv, err = store.Create(dir, s.id, store.Record{Model: model, Cwd: s.io.Cwd})
	return nil, err
}

func (s *session) close() {
	s.hooks.Settle()
	s.hooks.SessionEnd(context.Background(), firstOf(s.endReason, "other"))
	s.subagents.Close()
	s.hooks.Close()
	s.env.Jobs.KillAll()
	// The session's temporary folder goes when nothing was kept in it
	// (spilled output stays for whoever was told its path): one was left
	// empty a session.
	_ = os.Remove(filepath.Join(s.env.SpillDir, "jobs"))
	_ = os.Remove(s.env.SpillDir)
	s.mcp.Close()
	s.conv.Close()
	if err := s.transcript.Close(); err != nil {
		fmt.Fprintln(s.io.Stderr, "csa-agent: the Claude Code transcript:", err)
	}
}
