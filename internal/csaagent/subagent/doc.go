// Package subagent is csa-agent's side of the Task tool and of plan mode:
// the subagent definitions, and the tool.AgentHooks that run them.
//
// # Definitions
//
// Load(home, projectRoot) reads Claude Code's agent files (*.md with
// front matter: name, description, tools, model; the body is the system
// prompt) from ~/.claude/agents, <project>/.claude/agents and
// <project>/.csa/agents, a later one replacing an earlier one of the same
// name, after the built-in general-purpose definition.
//
// # Running subagents
//
// NewHooks(Config) makes the main agent's hooks; the CLI sets them as its
// Env.Agent and Config.Await, makes the agent, calls Attach, and Close at
// the end:
//
//	h := subagent.NewHooks(subagent.Config{Definitions: defs, Tools: all, Modes: policy, Plans: conv, ...})
//	env.Agent = h
//	a := loop.New(loop.Config{..., Env: env, Await: h.Await}, history)
//	h.Attach(a)
//	defer h.Close()
//
// A Task call (RunSubagent) runs a subagent with:
//   - a fresh context: its own conversation, FileState and todo list; the
//     working directory, roots, background jobs and spill directory are
//     shared; its permission check and event sink are the main agent's;
//   - the tools its definition lists, or all but Task when it lists none.
//     Depth rule: a subagent at depth d (the main agent's are at 1) gets
//     Task only when its definition lists Task and d < Config.MaxDepth,
//     which defaults to 1: by default subagents cannot start subagents,
//     so there is no unbounded recursion;
//   - the standard system prompt with the definition's prompt appended
//     (Config.System);
//   - its definition's model: "inherit" (or none) is the caller's provider
//     and model, anything else goes through Config.ResolveModel.
//
// Task is concurrency-safe, so the calls of one turn run in parallel. Every
// event of a subagent carries Event.Agent = its id, between a
// SubagentStart and a SubagentStop event (Text: the description, then the
// answer).
//
// A background Task call returns at once. Its answer reaches the model
// through the loop's Config.Await: when the model ends its turn without
// calling tools while background subagents run, the loop waits for the
// next of them to end and continues with a user message carrying every
// answer that has arrived (<subagent-result> blocks), until none is left;
// so no answer is lost. Background subagents outlive an interrupted turn
// (their answers come with the next one); Close stops them.
//
// # csa sessions
//
// Under csa (CSA_SESSION_ID and CSA_SESSION_DIR set) each subagent is also
// a child session of the run in csa's store (tool "subagent", depth one
// more than its parent, state running then completed, failed or killed
// with its result and failure class), so `csa ps --tree` shows it and
// `csa logs` reads its events (csa's events.jsonl: text, tool_call,
// tool_result, usage). This process holds the session's supervisor lock
// while it runs; its process group is not recorded, so `csa kill CHILD`
// signals nothing and only leaves its kill request, which the subagent
// polls (Config.KillPoll) and obeys by cancelling itself alone: the Task
// call then answers that it was stopped, and the run goes on. Its id is
// the session id, so the id in events is the one csa commands take.
//
// # Plan mode
//
// EnterPlanMode switches Config.Modes to "plan" (the permission policy
// then refuses writes) and ExitPlanMode presents the plan: recorded as a
// store.KindPlan record and written to <cwd>/.csa/plans/<date>-<slug>.md;
// then the run proceeds in bypassPermissions when that was the mode before
// plan mode, and otherwise a headless run stops with the plan as its
// result (see ExitPlanMode). Both emit event.PlanMode.
package subagent
