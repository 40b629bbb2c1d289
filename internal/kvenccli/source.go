package kvenccli

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/inspect"
)

// seqsPerBatch: cells read from a file get the seqs a load in write
// batches of this many cells gives them (one seq per batch, as kv.Apply).
const seqsPerBatch = 1000

// keyPart is one column of a --key list: a 1-based column number (0: the
// row number), written as text (width 0) or as a big-endian integer of
// width bytes, unsigned or with its sign bit flipped, so that byte order
// is numeric order.
type keyPart struct {
	col, width int
	unsigned   bool
}

// parseKeySpec parses "N[:[u]W],..." (W one of 1, 2, 4, 8).
func parseKeySpec(s string) ([]keyPart, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: --key is required (column numbers from 1, 0 for the row number)", errUsage)
	}
	var parts []keyPart
	for _, f := range strings.Split(s, ",") {
		col, w, hasW := strings.Cut(f, ":")
		n, err := strconv.Atoi(col)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: --key %q: %q is not a column number", errUsage, s, col)
		}
		p := keyPart{col: n}
		if n == 0 {
			p.width = 8
		}
		if hasW {
			w, p.unsigned = strings.CutPrefix(w, "u")
			p.width, err = strconv.Atoi(w)
			if err != nil || (p.width != 1 && p.width != 2 && p.width != 4 && p.width != 8) {
				return nil, fmt.Errorf("%w: --key %q: width %q is not 1, 2, 4 or 8", errUsage, s, w)
			}
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// appendInt appends v as a width-byte big-endian integer, unsigned or
// with its sign bit flipped, or fails when v does not fit.
func appendInt(dst []byte, v int64, width int, unsigned bool) ([]byte, error) {
	bits := width * 8
	u := uint64(v) ^ 1<<(bits-1)
	switch {
	case unsigned && (v < 0 || bits < 64 && v >= 1<<bits):
		return dst, fmt.Errorf("%d does not fit in %d bytes unsigned", v, width)
	case unsigned:
		u = uint64(v)
	case bits < 64 && (v < -(1<<(bits-1)) || v >= 1<<(bits-1)):
		return dst, fmt.Errorf("%d does not fit in %d bytes", v, width)
	}
	for i := width - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst, nil
}

// csvSource says how to turn the rows of a CSV or TSV file into cells.
type csvSource struct {
	path    string
	sep     rune
	header  bool
	key     []keyPart
	value   int    // 1-based value column; 0: every column not in the key
	valueAs string // "text", "int" (8-byte int64) or "float" (8-byte float64 bits)
	limit   int    // rows read at most
}

// readCSV reads the first s.limit rows of the file as cells, sorted by
// key; a key that repeats keeps its last row.
func readCSV(s csvSource) ([]blockenc.Cell, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sep := s.sep
	if sep == 0 {
		sep = ','
		if ext := strings.ToLower(filepath.Ext(s.path)); ext == ".tsv" || ext == ".tab" {
			sep = '\t'
		}
	}
	r := csv.NewReader(f)
	r.Comma = sep
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	var cells []blockenc.Cell
	inKey := map[int]bool{}
	for _, p := range s.key {
		inKey[p.col] = true
	}
	row := 0
	for len(cells) < s.limit {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.path, err)
		}
		if s.header && row == 0 && len(cells) == 0 {
			s.header = false
			continue
		}
		line, _ := r.FieldPos(0)
		key, err := s.makeKey(rec, row)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", s.path, line, err)
		}
		val, err := s.makeValue(rec, inKey, sep)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", s.path, line, err)
		}
		cells = append(cells, blockenc.Cell{Key: key, Value: val, Seq: uint64(row/seqsPerBatch + 1), Kind: blockenc.KindPut})
		row++
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%s: no rows", s.path)
	}
	return sortCells(cells), nil
}

func (s *csvSource) makeKey(rec []string, row int) ([]byte, error) {
	var key []byte
	for i, p := range s.key {
		if p.col == 0 {
			key, _ = appendInt(key, int64(row), 8, true)
			continue
		}
		if p.col > len(rec) {
			return nil, fmt.Errorf("key column %d: the row has %d columns", p.col, len(rec))
		}
		f := rec[p.col-1]
		if p.width == 0 {
			key = append(key, f...)
			if i < len(s.key)-1 {
				key = append(key, 0) // a text part ends before the next part
			}
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key column %d: %q is not an integer", p.col, f)
		}
		if key, err = appendInt(key, v, p.width, p.unsigned); err != nil {
			return nil, fmt.Errorf("key column %d: %w", p.col, err)
		}
	}
	return key, nil
}

func (s *csvSource) makeValue(rec []string, inKey map[int]bool, sep rune) ([]byte, error) {
	var text []byte
	if s.value > 0 {
		if s.value > len(rec) {
			return nil, fmt.Errorf("value column %d: the row has %d columns", s.value, len(rec))
		}
		text = []byte(rec[s.value-1])
	} else {
		first := true
		for i, f := range rec {
			if inKey[i+1] {
				continue
			}
			if !first {
				text = utf8Append(text, sep)
			}
			first = false
			text = append(text, f...)
		}
	}
	switch s.valueAs {
	case "", "text":
		return text, nil
	case "int":
		v, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("value %q is not an integer", text)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(v)), nil
	case "float":
		v, err := strconv.ParseFloat(strings.TrimSpace(string(text)), 64)
		if err != nil {
			return nil, fmt.Errorf("value %q is not a number", text)
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	}
	return nil, fmt.Errorf("%w: --value-as %q is not text, int or float", errUsage, s.valueAs)
}

func utf8Append(b []byte, r rune) []byte { return append(b, string(r)...) }

// sortCells sorts cells by key (stable, so that the last of equal keys
// stays last) and keeps the last cell of each key.
func sortCells(cells []blockenc.Cell) []blockenc.Cell {
	slices.SortStableFunc(cells, func(a, b blockenc.Cell) int { return bytes.Compare(a.Key, b.Key) })
	out := cells[:0]
	for i, c := range cells {
		if i+1 < len(cells) && bytes.Equal(c.Key, cells[i+1].Key) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// kvencRegistry starts the registry key of every kvenc store in a Badger DB.
var kvencRegistry = []byte("\xffkvenc/store/")

// readBadger reads the first limit live keys under prefix of the Badger
// DB in dir, opened read-only, as cells whose seq is the Badger version.
func readBadger(dir string, prefix []byte, limit int) ([]blockenc.Cell, error) {
	db, err := openBadgerReadOnly(dir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var cells []blockenc.Cell
	err = db.View(func(txn *badger.Txn) error {
		reg := txn.NewIterator(badger.IteratorOptions{Prefix: kvencRegistry})
		reg.Rewind()
		isStore := reg.Valid()
		reg.Close()
		if isStore {
			return fmt.Errorf("%s is a kvenc store, not a plain Badger directory: read its cells with --store", dir)
		}
		o := badger.DefaultIteratorOptions
		o.Prefix = prefix
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid() && len(cells) < limit; it.Next() {
			item := it.Item()
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			cells = append(cells, blockenc.Cell{Key: item.KeyCopy(nil), Value: v, Seq: min(item.Version(), blockenc.MaxSeq), Kind: blockenc.KindPut})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%s: no keys under prefix %q", dir, prefix)
	}
	return cells, nil
}

// openBadgerReadOnly opens the Badger DB in dir without writing to it.
func openBadgerReadOnly(dir string) (*badger.DB, error) {
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		return nil, fmt.Errorf("%s is not a Badger directory (no MANIFEST): %w", dir, err)
	}
	o := badger.DefaultOptions(dir).WithReadOnly(true).WithLogger(nil)
	db, err := badger.Open(o)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") || strings.Contains(err.Error(), "resource temporarily unavailable") {
			return nil, fmt.Errorf("%s is open in another process (Badger's directory lock): close it first: %w", dir, err)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return db, nil
}

// readStore reads the first limit live cells of the kvenc store under
// prefix in dir, opened read-only (what its writer has flushed), with the
// seqs of a load in batches (the Iterator shows no seqs).
func readStore(dir string, prefix []byte, limit int) ([]blockenc.Cell, error) {
	if prefix == nil {
		v, err := inspect.Open(dir, nil)
		if err != nil {
			return nil, err
		}
		prefix = v.Prefix()
		if err := v.Close(); err != nil {
			return nil, err
		}
	}
	o := kv.DefaultOptions(dir)
	o.Prefix, o.ReadOnly = prefix, true
	s, err := kv.Open(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return readCells(s, dir, prefix, limit)
}

// readLocated is readStore on the store loc locates; it also returns
// the store's name for advise's report.
func readLocated(loc Locator, prefix []byte, limit int) ([]blockenc.Cell, string, error) {
	t, err := loc.Inspect(prefix)
	if err != nil {
		return nil, "", err
	}
	name, prefix := t.Name, t.Prefix()
	if err := t.Close(); err != nil {
		return nil, "", err
	}
	s, err := loc.Open(prefix)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	cells, err := readCells(s, name, prefix, limit)
	return cells, fmt.Sprintf("kvenc store %s prefix %q", name, prefix), err
}

// readCells reads the first limit live cells of s, closes it, and gives
// them the seqs of a load in batches (the Iterator shows no seqs); name
// and prefix name the store in errors.
func readCells(s *kv.Store, name string, prefix []byte, limit int) ([]blockenc.Cell, error) {
	defer s.Close()
	var cells []blockenc.Cell
	it := s.NewIterator(kv.IterOptions{})
	for ok := it.First(); ok && len(cells) < limit; ok = it.Next() {
		cells = append(cells, blockenc.Cell{Key: bytes.Clone(it.Key()), Value: bytes.Clone(it.Value()), Seq: uint64(len(cells)/seqsPerBatch + 1), Kind: blockenc.KindPut})
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%s: the store under prefix %q holds no cells", name, prefix)
	}
	return cells, nil
}
