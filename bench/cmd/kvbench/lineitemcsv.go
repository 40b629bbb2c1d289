package main

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// runLineitemCSV writes the store benchmark's lineitem cells as CSV rows
// orderkey,linenumber,value (kvenc advise --key 1:u8,2:u4 --value 3 makes
// the same cells of them), to a file or stdout. The data is TPC-H
// generated at run time (see internal/dataset): never commit it.
func runLineitemCSV(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kvbench lineitem-csv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scale := fs.Float64("scale", 0.1, "TPC-H scale as a fraction of SF1 (0.1: the first 150,000 orders, 600,572 rows)")
	out := fs.String("o", "", "write to this file (default stdout)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *scale <= 0 || *scale > 1 {
		return fmt.Errorf("-scale %v: want 0 < scale <= 1", *scale)
	}
	set, err := dataset.LineitemRows(int(*scale * 10 * dataset.LineitemOrders))
	if err != nil {
		return err
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := csv.NewWriter(bw)
	for _, c := range dataset.LineitemCells(set, len(set.Rows)) {
		if len(c.Key) != 12 {
			return errors.New("lineitem-csv: a lineitem key is not 12 bytes")
		}
		rec := []string{
			strconv.FormatUint(binary.BigEndian.Uint64(c.Key), 10),
			strconv.FormatUint(uint64(binary.BigEndian.Uint32(c.Key[8:])), 10),
			string(c.Value),
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
