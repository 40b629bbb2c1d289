//go:build !race

package israce

// Enabled is true when built with -race.
const Enabled = false
