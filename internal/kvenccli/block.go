package kvenccli

import (
	"fmt"
	"io"
	"os"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/inspect"
)

const blockSynopsis = `FILE [--dict FILE] | STORE --segment S --block B [--prefix P]

Prints one block field by field, as blockenc's package doc draws it, after
blockenc.Verify's verdict on it: the block in FILE (its bytes), or block B
(from 0) of segment S of the kvenc store in DIR, opened read-only, with its
segment dictionary.`

func (c *cli) runBlock(args []string, stdout, stderr io.Writer) error {
	fs := c.newFlagSet("block", blockSynopsis, stderr)
	dictPath := fs.String("dict", "", "with FILE: a file holding the Dict the block was compressed against")
	segID := fs.Int64("segment", -1, "with DIR: the segment id (kvenc stats lists them)")
	blockIdx := fs.Int("block", -1, "with DIR: the block's index in its segment, from 0")
	prefix := prefixFlag(fs)
	loc := c.locate(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	located := loc != nil && loc.Given()
	if len(pos) != 1 && !(located && len(pos) == 0) {
		return fmt.Errorf("%w: want one block file or %s", errUsage, c.storeWanted())
	}
	var open func() (*Target, error)
	if located {
		open = func() (*Target, error) { return loc.Inspect(prefix.get()) }
	} else if fi, err := os.Stat(pos[0]); err == nil && fi.IsDir() {
		open = func() (*Target, error) { return openDir(pos[0], prefix.get()) }
	}
	if open != nil {
		if *segID < 0 || *blockIdx < 0 {
			return fmt.Errorf("%w: with a store, give --segment and --block", errUsage)
		}
		v, err := open()
		if err != nil {
			return err
		}
		defer v.Close()
		return storeBlock(stdout, v.Store, uint64(*segID), *blockIdx)
	}
	block, err := os.ReadFile(pos[0])
	if err != nil {
		return err
	}
	var d *blockenc.Dict
	if *dictPath != "" {
		b, err := os.ReadFile(*dictPath)
		if err != nil {
			return err
		}
		if d, err = blockenc.NewDict(b); err != nil {
			return fmt.Errorf("%s: %w", *dictPath, err)
		}
	}
	return showBlock(stdout, pos[0], block, d)
}

// storeBlock prints block idx of segment id of the store v.
func storeBlock(w io.Writer, v *inspect.Store, id uint64, idx int) error {
	segs, err := v.Segments()
	if err != nil {
		return err
	}
	for _, s := range segs {
		if s.ID != id {
			continue
		}
		if idx >= len(s.Blocks) {
			return fmt.Errorf("segment %d has %d blocks (0..%d)", id, len(s.Blocks), len(s.Blocks)-1)
		}
		if s.MetaErr != nil {
			return fmt.Errorf("segment %d: %w", id, s.MetaErr)
		}
		b, err := v.Block(s.Blocks[idx])
		if err != nil {
			return err
		}
		name := fmt.Sprintf("segment %d block %d (key %s)", id, idx, quote(s.Blocks[idx].Last))
		return showBlock(w, name, b, s.Dict(idx))
	}
	return fmt.Errorf("the store has no segment %d (kvenc stats lists them)", id)
}

// showBlock prints a block's verdict and layout.
func showBlock(w io.Writer, name string, block []byte, d *blockenc.Dict) error {
	verdict := "verify: ok"
	verr := blockenc.VerifyDict(block, d)
	if verr != nil {
		verdict = "verify: " + verr.Error()
	}
	fmt.Fprintf(w, "%s: %d bytes; %s\n", name, len(block), verdict)
	if err := printLayout(w, block, d); err != nil {
		fmt.Fprintf(w, "%8s  the walk stops: %v\n", "", err)
		if verr == nil {
			return err
		}
	}
	return verr
}
