package cli

import (
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/claudesettings"
	"github.com/csa-dev/csa/internal/csaagent/outputstyle"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// displaySettings reads the Claude Code settings that shape what the user
// sees (outputStyle, statusLine); the project's are those of the working
// directory, as Claude Code reads them. A broken file is reported and the
// others apply, as a broken style or skill file is.
func displaySettings(o *options, sio IO) claudesettings.Settings {
	s, err := claudesettings.Read(claudesettings.Sources{Home: sio.Getenv("HOME"), Project: sio.Cwd,
		Flag: o.settings, Managed: claudesettings.ManagedFile})
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent: settings:", err)
	}
	return s
}

// outputStyle is the style the settings select, or one of the enabled
// plugins forces; nil for none.
func outputStyle(sio IO, project, setting string, plugins []plugin.Plugin) *outputstyle.Style {
	home := sio.Getenv("HOME")
	styles, err := outputstyle.Load(outputstyle.Sources{Managed: outputstyle.ManagedDir, Home: home,
		Cwd: sio.Cwd, ProjectRoot: project, Plugins: plugins})
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent: output styles:", err)
	}
	style, ok := outputstyle.Select(styles, setting)
	if !ok {
		if setting != "" && setting != outputstyle.Default {
			fmt.Fprintf(sio.Stderr, "csa-agent: output style %q not found; using the default\n", setting)
		}
		return nil
	}
	return &style
}
