package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kvenc/kvenc/blockenc"
)

const blockSynopsis = `FILE [--dict FILE]

Prints the block in FILE (its bytes, blockenc format) field by field, as
blockenc's package doc draws it, after blockenc.Verify's verdict on it.`

func runBlock(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("block", blockSynopsis, stderr)
	dictPath := fs.String("dict", "", "a file holding the Dict the block was compressed against")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one block file", errUsage)
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
