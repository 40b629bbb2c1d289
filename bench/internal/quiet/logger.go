package quiet

import (
	"fmt"
	"os"
)

// Logger is a library logger (Pebble's Logger) that drops informational
// lines (Pebble logs the WALs it finds at every Open), prints errors to
// stderr with Prefix and panics on fatal ones, as Pebble's own logger exits.
type Logger struct{ Prefix string }

// Infof drops the line.
func (Logger) Infof(string, ...any) {}

// Errorf prints the line to stderr.
func (l Logger) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, l.Prefix+format+"\n", args...)
}

// Fatalf panics with the line.
func (l Logger) Fatalf(format string, args ...any) { panic(fmt.Sprintf(l.Prefix+format, args...)) }
