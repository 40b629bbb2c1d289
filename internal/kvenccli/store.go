package kvenccli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/inspect"
)

// An Opener adds a kind of store to the ones the commands read besides
// store directories: the flags that locate one (TiKV's --pd) and how to
// open it read-only.
type Opener interface {
	// Where is how a synopsis writes the flags that locate a store, as in
	// "--pd HOST:PORT,...".
	Where() string
	// Flags defines those flags on a command's flag set and returns the
	// Locator they fill in when the command line is parsed.
	Flags(fs *flag.FlagSet) Locator
}

// A Locator opens the store its flags locate.
type Locator interface {
	// Given reports whether the command line gave the flags: the store is
	// then theirs (and no directory is named).
	Given() bool
	// Inspect opens the store under prefix (nil: the only store there)
	// read-only.
	Inspect(prefix []byte) (*Target, error)
	// Open opens the store under prefix (required) as a kv.Store with
	// Options.ReadOnly set.
	Open(prefix []byte) (*kv.Store, error)
}

// Target is a store a command reads: a read-only inspect.Store, what to
// call it in reports, and what Close closes besides it.
type Target struct {
	*inspect.Store
	// Name names the store in reports: its directory, or where the
	// cluster is.
	Name string
	// Engine names the engine that holds the store, as in "WAL records in
	// Badger".
	Engine string
	// Closer, when not nil, is called by Close after the inspect.Store's
	// Close (it closes the engine OpenEngine left open).
	Closer func() error
}

// Close closes the inspect.Store and then calls Closer.
func (t *Target) Close() error {
	err := t.Store.Close()
	if t.Closer != nil {
		if cerr := t.Closer(); err == nil {
			err = cerr
		}
	}
	return err
}

// openDir opens the store under prefix in the Badger directory dir,
// read-only.
func openDir(dir string, prefix []byte) (*Target, error) {
	v, err := inspect.Open(dir, prefix)
	if err != nil {
		return nil, err
	}
	return &Target{Store: v, Name: dir, Engine: "Badger"}, nil
}

// locate defines the Opener's flags on fs (none without an Opener) and
// returns their Locator (nil without an Opener).
func (c *cli) locate(fs *flag.FlagSet) Locator {
	if c.opener == nil {
		return nil
	}
	return c.opener.Flags(fs)
}

// openStore parses the arguments of a command on one store, with
// --prefix and the Opener's flags, and opens its store read-only: the one
// the flags locate, or the directory named.
func (c *cli) openStore(fs *flag.FlagSet, args []string) (*Target, error) {
	prefix := prefixFlag(fs)
	loc := c.locate(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if loc != nil && loc.Given() {
		if len(pos) != 0 {
			return nil, fmt.Errorf("%w: a store directory and %s: give one", errUsage, c.opener.Where())
		}
		return loc.Inspect(prefix.get())
	}
	if len(pos) != 1 {
		return nil, fmt.Errorf("%w: want %s", errUsage, c.storeWanted())
	}
	return openDir(pos[0], prefix.get())
}

// storeWanted says what names a store, for usage errors.
func (c *cli) storeWanted() string {
	if c.opener == nil {
		return "one store directory"
	}
	return "one store directory or " + c.opener.Where()
}

// synopsis returns a command's synopsis with its STORE replaced by what
// names a store on this command line.
func (c *cli) synopsis(s string) string {
	where := "DIR"
	if c.opener != nil {
		where = "(DIR | " + c.opener.Where() + ")"
	}
	return strings.ReplaceAll(s, "STORE", where)
}

// diskBytes returns the bytes of every file under dir.
func diskBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// keyBefore reports whether key a sorts before key b.
func keyBefore(a, b []byte) bool { return bytes.Compare(a, b) < 0 }
