// Command kvenc looks inside a kvenc store, checks it, and chooses block
// options for the user's own data.
//
//	kvenc stats DIR [--prefix P] [--json] [--blocks]
//	kvenc verify DIR [--prefix P]
//	kvenc dump DIR [--prefix P] [--from K] [--to K] [--hex] [--reverse] [--versions] [--format text|hex|json]
//	kvenc block DIR --segment S --block B [--prefix P]
//	kvenc block FILE [--dict FILE]
//	kvenc advise --csv FILE --key N[:W],... [--value N] [flags]
//	kvenc advise --badger DIR [--prefix P] [flags]
//	kvenc advise --store DIR [--prefix P] [flags]
//
// stats describes a store from its segment metas, block keys and WAL
// files (it reads no block unless --blocks asks). verify reads every meta,
// block and WAL file and exits with status 1, naming the segment, block and
// byte offset of each problem and how to repair it, when anything is
// wrong. dump prints the cells in key order: the newest live version of
// each key, or every version. block prints one block field by field, as
// blockenc's package doc draws it.
//
// advise encodes a sample of the user's cells with each block encoding,
// compression, compression level, block size and dictionary setting worth
// trying, measures the bytes per cell and the SeekGE, Next and Get times
// on those blocks, and prints the table, the winner per goal (smallest,
// fastest Get, fastest scan, balanced) and the kv.Options that give each,
// as Go code. The cells come from a CSV or TSV file (key columns, value
// the rest or one column), a plain Badger directory or a kvenc store.
//
// kvenc opens every directory read-only (a store open in another process
// is refused: Badger's lock) and never writes to it. It reads stores
// through package kv/inspect, with kv's own decoders; the formats it does
// not know are refused by name. A progress bar is drawn on stderr for work
// that takes more than a second, when
// stderr is a terminal.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0 // done; verify: no problem found
	exitFound = 1 // verify found a problem, or the command failed
	exitUsage = 2 // bad command line
)

const usage = `usage: kvenc <command> [flags]

commands:
  advise   measure block options on a sample of your cells and print the best
           kv.Options per goal (--csv FILE --key N, --badger DIR or --store DIR)
  block    print one block's bytes field by field (a file of block bytes)
  stats    describe a store from its metas: segments, blocks, bytes, settings, WAL
  dump     print a store's cells in key order (newest live versions, or every version)
  verify   check every block, meta and WAL file of a store (exit 1 on a problem)

"kvenc <command> -h" lists a command's flags.
`

// errUsage marks an error in the command line (exit status 2).
var errUsage = errors.New("usage")

// run is the command: main calls it with the process's arguments and
// streams, tests with their own.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "advise":
		err = runAdvise(args[1:], stdout, stderr)
	case "block":
		err = runBlock(args[1:], stdout, stderr)
	case "verify":
		err = runVerify(args[1:], stdout, stderr)
	case "stats":
		err = runStats(args[1:], stdout, stderr)
	case "dump":
		err = runDump(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "kvenc: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "kvenc %s: %v\n", args[0], err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "kvenc %s: %v\n", args[0], err)
		return exitFound
	}
}

// newFlagSet returns a flag set for a command that reports its errors on
// stderr and does not exit.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kvenc "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kvenc %s %s\n\nflags:\n", name, synopsis)
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
