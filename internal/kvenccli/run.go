// Package kvenccli is the kvenc command (see cmd/kvenc for what its
// commands do): Run parses a command line and runs it. Both commands call
// it: cmd/kvenc on store directories (Badger), and kvtikv's kvenc-tikv
// with an Opener that also opens stores in TiKV (--pd), so that the
// library module's command never imports client-go.
package kvenccli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit statuses.
const (
	exitOK    = 0 // done; verify: no problem found
	exitFound = 1 // verify found a problem, or the command failed
	exitUsage = 2 // bad command line
)

// cli is one run of the command: its name and the Opener of the stores
// it reads besides directories (nil: directories only).
type cli struct {
	name   string
	opener Opener
}

const usage = `usage: %[1]s <command> [flags]

commands:
  advise   measure block options on a sample of your cells and print the best
           kv.Options per goal (--csv FILE --key N, --badger DIR or --store DIR)
  block    print one block's bytes field by field (a file of block bytes)
  stats    describe a store from its metas: segments, blocks, bytes, settings, WAL
  dump     print a store's cells in key order (newest live versions, or every version)
  verify   check every block, meta and WAL file of a store (exit 1 on a problem)

"%[1]s <command> -h" lists a command's flags.
`

// errUsage marks an error in the command line (exit status 2).
var errUsage = errors.New("usage")

// Run is the kvenc command: main calls it with the process's arguments
// (without the program name) and streams, tests with their own; it
// returns the exit status. name is the command's name in its messages;
// opener, when not nil, adds the stores it locates by flags (TiKV's
// --pd) to the store directories every command reads.
func Run(name string, args []string, stdout, stderr io.Writer, opener Opener) int {
	c := &cli{name: name, opener: opener}
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, name)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "advise":
		err = c.runAdvise(args[1:], stdout, stderr)
	case "block":
		err = c.runBlock(args[1:], stdout, stderr)
	case "verify":
		err = c.runVerify(args[1:], stdout, stderr)
	case "stats":
		err = c.runStats(args[1:], stdout, stderr)
	case "dump":
		err = c.runDump(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(stdout, usage, name)
		return exitOK
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q\n", name, args[0])
		fmt.Fprintf(stderr, usage, name)
		return exitUsage
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "%s %s: %v\n", name, args[0], err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "%s %s: %v\n", name, args[0], err)
		return exitFound
	}
}

// newFlagSet returns a flag set for a command that reports its errors on
// stderr and does not exit.
func (c *cli) newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name+" "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s %s %s\n\nflags:\n", c.name, name, c.synopsis(synopsis))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args with fs, letting flags follow positional
// arguments (kvenc block FILE --dict D), and returns the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// prefixValue is a --prefix flag that knows whether it was given.
type prefixValue struct {
	s   string
	set bool
}

func (p *prefixValue) String() string { return p.s }

func (p *prefixValue) Set(s string) error { p.s, p.set = s, true; return nil }

// get returns the prefix, or nil when the flag was not given.
func (p *prefixValue) get() []byte {
	if !p.set {
		return nil
	}
	return []byte(p.s)
}

// prefixFlag defines --prefix on fs.
func prefixFlag(fs *flag.FlagSet) *prefixValue {
	p := new(prefixValue)
	fs.Var(p, "prefix", "the store's Options.Prefix (default: the only store in the directory)")
	return p
}
