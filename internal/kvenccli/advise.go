package kvenccli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kvenc/kvenc/blockenc"
)

const adviseSynopsis = `(--csv FILE --key N[:W],... [--value N] | --badger DIR [--prefix P] | --store DIR [--prefix P]) [flags]

Encodes a sample of your cells with each block encoding, compression,
level, block size and dictionary setting worth trying, times SeekGE, Next
and Get on the blocks, and prints the table, the winner per goal and the
kv.Options that give it.

--key lists the key columns (from 1; 0 is the row number as 8 bytes);
N:W writes column N as a W-byte big-endian integer (W 1, 2, 4 or 8) with
its sign bit flipped so that byte order is numeric order, N:uW as an
unsigned one, N alone as its text.
Cells from a file get the seqs of a load in batches of 1000 writes.`

// goals, in the order advise reports them.
var goals = []struct{ name, says string }{
	{"smallest", "fewest bytes per cell"},
	{"fastest get", "fastest point read of a block not in the cache"},
	{"fastest scan", "fastest scan of blocks not in the cache"},
	{"balanced", "fastest get within 5% of the smallest, at levels up to 9"},
}

func (c *cli) runAdvise(args []string, stdout, stderr io.Writer) error {
	fs := c.newFlagSet("advise", c.adviseSynopsis(), stderr)
	var src csvSource
	fs.StringVar(&src.path, "csv", "", "read cells from this CSV (TSV for .tsv/.tab) file")
	keySpec := fs.String("key", "", "key columns: N[:[u]W],... (with --csv)")
	fs.IntVar(&src.value, "value", 0, "value column (with --csv); 0: every column not in the key, joined by the separator")
	fs.StringVar(&src.valueAs, "value-as", "text", "value as text, int (8-byte big-endian int64) or float (8-byte float64 bits)")
	sep := fs.String("sep", "", "field separator (default: tab for .tsv and .tab files, else comma)")
	fs.BoolVar(&src.header, "header", false, "skip the file's first row")
	badgerDir := fs.String("badger", "", "read cells from this Badger directory (opened read-only)")
	storeDir := fs.String("store", "", "read cells from the kvenc store in this directory (opened read-only)")
	prefix := prefixFlag(fs)
	loc := c.locate(fs)
	fs.IntVar(&src.limit, "cells", 100_000, "sample: the first this many rows or keys")
	gets := fs.Int("gets", 2000, "point reads timed per round")
	rounds := fs.Int("rounds", 3, "timing rounds (the fastest is reported)")
	quick := fs.Bool("quick", false, "try 16 KiB blocks at level 9 only")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	case btoi(src.path != "")+btoi(*badgerDir != "")+btoi(*storeDir != "")+btoi(loc != nil && loc.Given()) != 1:
		return fmt.Errorf("%w: give one of %s", errUsage, c.adviseSources())
	case src.limit < 1 || *gets < 1 || *rounds < 1:
		return fmt.Errorf("%w: --cells, --gets and --rounds must be positive", errUsage)
	}
	if *sep != "" {
		r := []rune(*sep)
		if len(r) != 1 {
			return fmt.Errorf("%w: --sep %q is not one character", errUsage, *sep)
		}
		src.sep = r[0]
	}
	var cells []blockenc.Cell
	var from string
	if src.path != "" {
		if src.key, err = parseKeySpec(*keySpec); err != nil {
			return err
		}
		cells, err = readCSV(src)
		from = src.path
	} else if *badgerDir != "" {
		cells, err = readBadger(*badgerDir, []byte(prefix.s), src.limit)
		from = *badgerDir
		if prefix.s != "" {
			from += fmt.Sprintf(" prefix %q", prefix.s)
		}
	} else if *storeDir != "" {
		cells, err = readStore(*storeDir, prefix.get(), src.limit)
		from = "kvenc store " + *storeDir
	} else {
		cells, from, err = readLocated(loc, prefix.get(), src.limit)
	}
	if err != nil {
		return err
	}
	results, err := adviseCells(cells, candidates(*quick), measureOpts{gets: *gets, rounds: *rounds}, stderr)
	if err != nil {
		return err
	}
	printAdvice(stdout, from, cells, results)
	return nil
}

// adviseSources lists the flags that give advise its cells.
func (c *cli) adviseSources() string {
	if c.opener == nil {
		return "--csv FILE, --badger DIR or --store DIR"
	}
	return "--csv FILE, --badger DIR, --store DIR or " + c.opener.Where()
}

// adviseSynopsis is advise's synopsis, with the Opener's flags.
func (c *cli) adviseSynopsis() string {
	if c.opener == nil {
		return adviseSynopsis
	}
	return strings.Replace(adviseSynopsis, "--store DIR [--prefix P])", "--store DIR [--prefix P] | "+c.opener.Where()+" [--prefix P])", 1)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// adviseCells measures every candidate on cells, drawing progress on
// stderr.
func adviseCells(cells []blockenc.Cell, cs []candidate, mo measureOpts, stderr io.Writer) ([]result, error) {
	bar := newProgress(stderr, len(cs))
	defer bar.done()
	var out []result
	for _, c := range cs {
		bar.step(c.name())
		r, err := measure(cells, c, mo)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// balancedMaxLevel is the highest compression level the balanced goal
// considers: above it LZ4 parses optimally.
const balancedMaxLevel = 9

// winners returns the index in rs of each goal's winner (goals' order).
func winners(rs []result) []int {
	best := func(better func(a, b *result) bool, ok func(*result) bool) int {
		w := -1
		for i := range rs {
			if ok(&rs[i]) && (w < 0 || better(&rs[i], &rs[w])) {
				w = i
			}
		}
		return w
	}
	all := func(*result) bool { return true }
	size := func(a, b *result) bool { return a.perCell < b.perCell }
	get := func(a, b *result) bool { return a.getNs < b.getNs }
	// Balanced leaves out the optimal parse (levels above 9): it writes
	// a few percent smaller blocks many times slower (a load in key order
	// and every compaction encode at that level).
	fastParse := func(r *result) bool { return r.c.block.CompressionLevel <= balancedMaxLevel }
	limit := rs[best(size, fastParse)].perCell * 1.05
	return []int{
		best(size, all),
		best(get, all),
		best(func(a, b *result) bool { return a.scanNs < b.scanNs }, all),
		best(get, func(r *result) bool { return fastParse(r) && r.perCell <= limit }),
	}
}

// printAdvice writes the table (smallest first), the winners and their
// kv.Options.
func printAdvice(w io.Writer, from string, cells []blockenc.Cell, rs []result) {
	var raw int
	for _, c := range cells {
		raw += len(c.Key) + len(c.Value) + 8
	}
	fmt.Fprintf(w, "sample: %d cells from %s, %.1f raw bytes per cell (key, value, 8-byte seq)\n\n", len(cells), from, float64(raw)/float64(len(cells)))
	win := winners(rs)
	marks := make(map[int][]string)
	for g, i := range win {
		marks[i] = append(marks[i], goals[g].name)
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rs[a].perCell < rs[b].perCell:
			return -1
		case rs[a].perCell > rs[b].perCell:
			return 1
		}
		return 0
	})
	nameW := len("options")
	for i := range rs {
		nameW = max(nameW, len(rs[i].c.name()))
	}
	fmt.Fprintf(w, "%-*s  %6s  %6s  %6s  %7s  %7s  %7s  %7s\n", nameW, "options", "blocks", "B/cell", "get us", "seek ns", "next ns", "scan ns", "enc ns")
	for _, i := range order {
		r := &rs[i]
		note := marks[i]
		if r.c == kvDefault {
			note = append(note, "kv default")
		}
		line := fmt.Sprintf("%-*s  %6d  %6.2f  %6.2f  %7.0f  %7.1f  %7.1f  %7.0f  %s", nameW, r.c.name(), r.blocks, r.perCell, r.getNs/1e3, r.seekNs, r.nextNs, r.scanNs, r.encodeNs, strings.Join(note, ", "))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprint(w, `
  B/cell: the blocks and the segment dictionary over the cells. get: copy a block
  not in the cache, Init, SeekGE, value (a store's point read on a cache miss,
  without Badger's read). seek: SeekGE in a block already read. next: Next per
  cell over blocks already read. scan: copy, Init and Next over every block, per
  cell. enc: encoding per cell (what a compaction, and a load in key order,
  spends). The fastest of rounds; random existing keys, fixed seed. Levels above 9
  parse optimally: a few percent smaller, several times slower to write.
`)
	for g, i := range win {
		r := &rs[i]
		fmt.Fprintf(w, "\n%s (%s): %s, %.2f B/cell, get %.2f us, scan %.1f ns/cell\n\n", goals[g].name, goals[g].says, r.c.name(), r.perCell, r.getNs/1e3, r.scanNs)
		for _, line := range strings.Split(strings.TrimRight(r.c.goCode(), "\n"), "\n") {
			fmt.Fprintf(w, "\t%s\n", line)
		}
	}
}

// progress is a one-line bar on stderr, drawn only when stderr is a
// terminal and the work has run for more than a second.
type progress struct {
	w     io.Writer
	on    bool
	total int
	n     int
	start time.Time
	drawn bool
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, on: isTerminal(w), total: total, start: time.Now()}
}

// step marks the start of step n+1, named label.
func (p *progress) step(label string) {
	p.n++
	if !p.on || time.Since(p.start) < time.Second {
		return
	}
	const width = 30
	fill := width * (p.n - 1) / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d %-40.40s", strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.n, p.total, label)
	p.drawn = true
}

// done clears the bar.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 90))
	}
}
