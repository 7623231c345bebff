package main

import (
	"runtime/debug"
	"strings"
)

// buildVersion is set at link time: -ldflags "-X main.buildVersion=v0.1.0".
var buildVersion = "dev"

// buildInfo returns the VCS revision and time recorded in the binary.
func buildInfo() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	parts := []string{}
	if rev != "" {
		parts = append(parts, rev+dirty)
	}
	if when != "" {
		parts = append(parts, when)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, ", ")
}
