// Package outputstyle finds the output styles a Claude Code set-up
// defines and the one its settings select: the built-in ones, the
// markdown files of .claude/output-styles in the user's, the project's
// and the organisation's folders, and those of enabled plugins. The
// selected style's prompt goes into the system prompt (see prompt.Style).
package outputstyle

// Default is the name that selects no style, as an unset setting does.
const Default = "default"

// Where a style comes from, as Claude Code names the sources.
const (
	BuiltIn = "built-in"
	Plugin  = "plugin"
	User    = "userSettings"
	Project = "projectSettings"
	Policy  = "policySettings"
)

// Style is one output style.
type Style struct {
	Name        string
	Description string
	// Prompt is the file's body, trimmed: it takes the system prompt's
	// place of the default way of answering.
	Prompt string
	Source string
	// KeepCodingInstructions keeps the system prompt's coding guidance
	// beside the style (front matter keep-coding-instructions: true);
	// without it the style replaces that guidance.
	KeepCodingInstructions bool
	// ForceForPlugin: a plugin's style that applies whatever the
	// settings say.
	ForceForPlugin bool
}

// builtIns are the styles every installation has, under Claude Code's
// names and in its order (a setting naming one selects ours). Their prompts are written
// for csa-agent; they keep the coding guidance.
var builtIns = []Style{
	{
		Name:        "Proactive",
		Description: "Acts at once, interrupts as little as possible and prefers doing to planning",
		Prompt: `Work on the user's software engineering tasks autonomously: start at once and carry on without waiting.
# Proactive Style Active
Make reasonable assumptions on routine and low-risk decisions instead of asking. Plan only when asked to. Take the
user's corrections in stride whenever they come. Autonomy is no licence for damage: ask before deleting data or
changing shared or production systems, and share nothing outside the project unless the user said so.`,
		Source: BuiltIn, KeepCodingInstructions: true,
	},
	{
		Name:        "Explanatory",
		Description: "Explains the choices made and the patterns of the codebase while working",
		Prompt: `Besides doing the software engineering work asked for, teach the user about their codebase as you go.
Stay on the task, but say why you chose an approach and what in the code led you to it.
# Explanatory Style Active
Before and after writing code, add a short "Insight" note (two or three points) about something specific to this
codebase or to the code just written: a convention it follows, a trade-off made, a pattern worth knowing. Keep the
notes in the conversation, never in the files.`,
		Source: BuiltIn, KeepCodingInstructions: true,
	},
	{
		Name:        "Learning",
		Description: "Asks the user to write small, meaningful pieces of the code themselves, for practice",
		Prompt: `Besides doing the software engineering work asked for, help the user learn the codebase by doing.
Be encouraging. Do the routine parts yourself, but when a piece of code carries a real design decision (a few
lines of logic, an error-handling policy, a choice between approaches), leave it to the user.
# Learning Style Active
To hand a piece over: prepare the surrounding code, mark the spot with a TODO(human) comment, then stop and ask,
saying what to write, where, and what to weigh. Ask for one piece at a time. When the user has written it, say in
a sentence or two how it fits the rest of the system. Add short "Insight" notes, as in the Explanatory style, on
what is specific to this codebase.`,
		Source: BuiltIn, KeepCodingInstructions: true,
	},
}

// Select is the style the setting names (Default or "" for none), unless
// a plugin forces its own, which wins as in Claude Code (the first, when
// several do). ok is false when no style applies: the setting names none,
// or one that does not exist.
func Select(styles []Style, setting string) (Style, bool) {
	for _, s := range styles {
		if s.Source == Plugin && s.ForceForPlugin {
			return s, true
		}
	}
	if setting == "" || setting == Default {
		return Style{}, false
	}
	for _, s := range styles {
		if s.Name == setting {
			return s, true
		}
	}
	return Style{}, false
}
