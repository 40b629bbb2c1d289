// Package seekbench measures seeking in one ~32 KiB block of cells: kvenc's
// blockenc seekers, one per encoding, against Pebble v2's row block (restart
// interval 16) and a one-block Badger v4 table built from the same cells.
//
// Every subject answers four questions on the same cells: bytes per cell,
// SeekGE to random existing keys (ns/op), SeekGE to every key in ascending
// order (ns/op), a First+Next scan over the whole block (ns/cell), and
// backward: SeekLT to random existing keys (ns/op) and a Last+Prev scan
// (ns/cell); Badger's table is measured forward only.
// kvenc's seekers also scan through Cell, the loop a caller writes to read
// a cell's key and value together.
// Before anything is timed, each subject's block is checked: SeekGE to
// every key must land on that key with its value (SeekLT on the key
// before), and a scan must return every cell in order (backward: in
// reverse). A subject that fails is reported as an error, never
// as a number.
package seekbench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// Subject is one block implementation built over a key set.
type Subject struct {
	Name  string
	Bytes int // encoded block size
	Cells int
	// SeekRandom, SeekAscending and Scan are benchmark bodies; Scan does
	// one full pass per op.
	SeekRandom, SeekAscending, Scan func(b *testing.B)
	// ScanCell is a full pass like Scan that reads each cell through
	// blockenc's Seeker.Cell; nil for subjects without one (Pebble, Badger).
	ScanCell func(b *testing.B)
	// SeekLTRandom is SeekLT to random existing keys (but the first: it has
	// no cell before it), landing on the cell before each; ScanReverse a
	// Last+Prev pass over the whole block per op. Nil for Badger's table.
	SeekLTRandom, ScanReverse func(b *testing.B)
}

// Subjects builds every subject over kvs: one per kvenc encoding, Badger's
// table (one block), then Pebble's rowblk, always last. It returns an error
// if any block fails its check.
func Subjects(kvs []dataset.KV) ([]Subject, error) {
	order := randomOrder(kvs)
	var out []Subject
	kv, err := kvencSubjects(kvs, order)
	if err != nil {
		return nil, err
	}
	out = append(out, kv...)
	bt, err := badgerSubject(kvs, order)
	if err != nil {
		return nil, err
	}
	out = append(out, bt)
	p, err := pebbleSubject(kvs, order)
	if err != nil {
		return nil, err
	}
	return append(out, p), nil
}

// PebbleName is the name of the peer subject.
const PebbleName = "pebble-rowblk"

// randomOrder returns the keys in a fixed pseudo-random order.
func randomOrder(kvs []dataset.KV) [][]byte {
	r := rand.New(rand.NewPCG(7, 107))
	keys := make([][]byte, len(kvs))
	for i, j := range r.Perm(len(kvs)) {
		keys[i] = kvs[j].Key
	}
	return keys
}

// ltTargets returns the keys in the fixed pseudo-random order without the
// first key of the block, so that every SeekLT finds a cell.
func ltTargets(kvs []dataset.KV) [][]byte {
	var keys [][]byte
	for _, k := range randomOrder(kvs) {
		if !bytes.Equal(k, kvs[0].Key) {
			keys = append(keys, k)
		}
	}
	return keys
}

func ascending(kvs []dataset.KV) [][]byte {
	keys := make([][]byte, len(kvs))
	for i := range kvs {
		keys[i] = kvs[i].Key
	}
	return keys
}

func mismatch(name, what string, i int, got, want []byte) error {
	return fmt.Errorf("seekbench: %s: %s at cell %d: got %x, want %x", name, what, i, got, want)
}
