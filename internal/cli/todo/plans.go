package todo

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/todo"
)

func newCreate(f *cmdutil.Factory) *cobra.Command {
	var from string
	cmd := &cobra.Command{
		Use:   "create TITLE [--from FILE]",
		Short: "Create a plan (from a markdown file) and print its id",
		Args:  cmdutil.MaximumArgs(1, "the plan's title, as one argument"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := &todo.Plan{Status: todo.Draft}
			if from != "" {
				b, err := os.ReadFile(from)
				if err != nil {
					return cmdutil.Usagef("--from: %v", err)
				}
				if p, err = todo.Parse(from, string(b)); err != nil {
					return classify(err)
				}
			}
			if len(args) == 1 {
				p.Title = strings.TrimSpace(args[0])
			}
			switch {
			case p.Title == "":
				return cmdutil.Usagef("give the plan a title (or --from a markdown file beginning \"# TITLE\")")
			case strings.ContainsAny(p.Title, "\r\n"):
				return cmdutil.Usagef("a plan's title is one line")
			}
			s, _, err := store(f)
			if err != nil {
				return err
			}
			id, err := s.Create(cmd.Context(), p)
			if err != nil {
				return classify(err)
			}
			if f.JSON {
				return f.IO.PrintJSON(map[string]string{"id": id, "title": p.Title})
			}
			fmt.Fprintln(f.IO.Out, id)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the plan's markdown (TITLE, when given, replaces its title)")
	return cmd
}

// summary is a plan in `list --json`.
type summary struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Status todo.Status `json:"status"`
	Tasks  int         `json:"tasks"`
	Done   int         `json:"done"`
}

func newList(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List this project's plans: id, status, tasks done, title",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, _, err := store(f)
			if err != nil {
				return err
			}
			ids, err := s.IDs()
			if err != nil {
				return err
			}
			list := []summary{}
			for _, id := range ids {
				p, err := s.Get(id)
				if err != nil {
					return classify(err)
				}
				sm := summary{ID: id, Title: p.Title, Status: p.Status, Tasks: len(p.Tasks)}
				for _, t := range p.Tasks {
					if t.Done {
						sm.Done++
					}
				}
				list = append(list, sm)
			}
			if f.JSON {
				return f.IO.PrintJSON(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(f.IO.ErrOut, "csa: no plans in this project (csa todo create TITLE)")
			}
			for _, sm := range list {
				fmt.Fprintf(f.IO.Out, "%-24s %-12s %d/%d  %s\n", sm.ID, sm.Status, sm.Done, sm.Tasks, sm.Title)
			}
			return nil
		},
	}
}

// view is a plan in `show --json`.
type view struct {
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Status      todo.Status `json:"status"`
	Description string      `json:"description"`
	Tasks       []taskView  `json:"tasks"`
}

type taskView struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Done      bool     `json:"done"`
	After     []string `json:"after"`
	Tool      string   `json:"tool"`
	Tier      string   `json:"tier"`
	Worktree  *bool    `json:"worktree,omitempty"` // as its worktree: line says
	Isolate   string   `json:"isolate,omitempty"`  // as its isolate: line says
	Prompt    string   `json:"prompt"`
	SessionID string   `json:"session_id"`
	Line      int      `json:"line"`
}

func newShow(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show PLAN",
		Short: "Show a plan's markdown (--json: its parts)",
		Args:  cmdutil.ExactArgs(1, "a plan (see `csa todo list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			if !f.JSON {
				text, err := s.Text(id)
				if err != nil {
					return classify(err)
				}
				_, err = fmt.Fprint(f.IO.Out, text)
				return err
			}
			p, err := s.Get(id)
			if err != nil {
				return classify(err)
			}
			v := view{ID: id, Title: p.Title, Status: p.Status, Description: p.Description, Tasks: []taskView{}}
			for _, t := range p.Tasks {
				after := t.After
				if after == nil {
					after = []string{}
				}
				v.Tasks = append(v.Tasks, taskView{ID: t.ID, Title: t.Title, Done: t.Done, After: after, Tool: t.Tool,
					Tier: t.Tier, Worktree: t.Worktree, Isolate: t.Isolate, Prompt: t.PromptText(), SessionID: t.Session, Line: t.Line})
			}
			return f.IO.PrintJSON(v)
		},
	}
}

func newStatus(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status PLAN [NEW]",
		Short: "Show a plan's status, or set it: draft, approved, implementing, done",
		Args:  cmdutil.ArgsBetween(1, 2, "a plan (see `csa todo list`), then its new status if any"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			var p *todo.Plan
			if len(args) == 1 {
				p, err = s.Get(id)
			} else {
				st, perr := todo.ParseStatus(args[1])
				if perr != nil {
					return cmdutil.Usagef("%v", perr)
				}
				p, err = s.SetStatus(cmd.Context(), id, st)
			}
			if err != nil {
				return classify(err)
			}
			if f.JSON {
				return f.IO.PrintJSON(map[string]any{"id": id, "status": p.Status})
			}
			fmt.Fprintln(f.IO.Out, p.Status)
			return nil
		},
	}
}

func newDone(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "done PLAN TASK",
		Short: "Mark a task done",
		Args:  cmdutil.ExactArgs(2, "a plan and one of its tasks (see `csa todo show PLAN`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			_, err = s.Update(cmd.Context(), id, func(p *todo.Plan) (string, error) {
				t := p.Task(args[1])
				if t == nil {
					return "", cmdutil.Usagef("plan %s has no task %q", id, args[1])
				}
				t.Done = true
				return fmt.Sprintf("task %s done", t.ID), nil
			})
			return classify(err)
		},
	}
}

func newLog(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "log PLAN",
		Short: "A plan's history, newest first: one commit per change",
		Args:  cmdutil.ExactArgs(1, "a plan (see `csa todo list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			log, err := s.Log(cmd.Context(), id)
			if err != nil {
				return err
			}
			if f.JSON {
				return f.IO.PrintJSON(log)
			}
			for _, c := range log {
				fmt.Fprintf(f.IO.Out, "%s %s %s\n", c.Hash, c.Time.Format("2006-01-02 15:04:05"), c.Subject)
			}
			return nil
		},
	}
}

func newDag(f *cmdutil.Factory) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "dag PLAN [--format terminal|mermaid|dot]",
		Short: "Draw a plan's dependency graph",
		Args:  cmdutil.ExactArgs(1, "a plan (see `csa todo list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			p, err := s.Get(id)
			if err != nil {
				return classify(err)
			}
			out, err := todo.Render(p, format)
			if err != nil {
				return cmdutil.Usagef("--format: %v", err)
			}
			_, err = fmt.Fprint(f.IO.Out, out)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", todo.FormatTerminal, "terminal, mermaid or dot")
	return cmd
}
