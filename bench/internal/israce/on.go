//go:build race

// Package israce tells tests whether the race detector is on, so that they
// can skip work that takes minutes under it (dbgen's set-up).
package israce

// Enabled is true when built with -race.
const Enabled = true
