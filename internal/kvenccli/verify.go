package kvenccli

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/inspect"
)

const verifySynopsis = `STORE [--prefix P]

Reads every segment meta, every block (checksum, structure, cell order,
against the meta's counts and key range and its key filter), every WAL file and WAL record and
the registry entry of the kvenc store in DIR, opened read-only. Exit status
0 when everything checks, 1 when anything is wrong: each problem names the
segment, block and byte offset and says how to repair it.`

// problem is one thing verify found wrong.
type problem struct {
	where  string
	err    error
	repair string
}

// Repairs, by what is damaged.
const (
	repairBlock  = "the block's cells cannot be read back (reads of its keys and every compaction of its segment fail with ErrCorrupt): restore the store from a backup"
	repairMeta   = "kv's Open refuses a store with a bad meta (ErrCorrupt) and a segment's blocks cannot be read without it: restore the store from a backup"
	repairFilter = "kv's Get does not find the key (its segment's key filter says the segment does not hold it): restore the store from a backup"
	repairCount  = "the segment's blocks and meta disagree (Open fails with ErrCorrupt): restore the store from a backup"
	repairWAL    = "kv's Open fails on it (ErrCorrupt); truncating the file at that offset drops that write and the later ones in the file, which were acknowledged: restore from a backup if they matter"
)

func (c *cli) runVerify(args []string, stdout, stderr io.Writer) error {
	fs := c.newFlagSet("verify", verifySynopsis, stderr)
	v, err := c.openStore(fs, args)
	if err != nil {
		return err
	}
	defer v.Close()
	probs, notes, sum, err := verifyStore(v, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "store %s prefix %q, key layout %d: %s\n", v.Name, v.Prefix(), inspect.KeyLayout, sum)
	for _, n := range notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	for _, p := range probs {
		fmt.Fprintf(stdout, "PROBLEM %s: %v\n  repair: %s\n", p.where, p.err, p.repair)
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %d (listed on stdout)", errFound, len(probs))
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}

// errStore: the store's parts disagree (blocks against their meta or
// each other).
var errStore = errors.New("kvenc: corrupt store")

// errFound: verify found problems (exit status 1, reported on stdout).
var errFound = errors.New("problems found")

// verifyStore checks everything and returns the problems, notes (things
// kv's Open cleans up by itself) and a summary line.
func verifyStore(v *Target, stderr io.Writer) ([]problem, []string, string, error) {
	segs, err := v.Segments()
	if err != nil {
		return nil, nil, "", err
	}
	var probs []problem
	var notes []string
	nblocks := 0
	for _, s := range segs {
		nblocks += len(s.Blocks)
	}
	bar := newProgress(stderr, nblocks)
	defer bar.done()
	var cells, blocks int
	for _, s := range segs {
		switch {
		case s.Meta == nil && s.MetaErr == nil:
			notes = append(notes, fmt.Sprintf("segment %d: %d blocks without a meta (a flush or compaction cut short): kv's Open deletes them", s.ID, len(s.Blocks)))
			continue
		case s.MetaErr != nil:
			probs = append(probs, problem{fmt.Sprintf("segment %d", s.ID), s.MetaErr, repairMeta})
			continue
		}
		sp, sn := verifySegment(v.Store, s, bar)
		probs, notes = append(probs, sp...), append(notes, sn...)
		cells += int(s.Meta.Cells)
		blocks += int(s.Meta.Blocks)
	}
	files := v.WALFiles()
	records := 0
	for _, f := range files {
		records += len(f.Records)
		if f.Err != nil {
			probs = append(probs, problem{f.Name, f.Err, repairWAL})
		}
		if f.Torn > 0 {
			notes = append(notes, fmt.Sprintf("%s: its last %d bytes are a frame cut short (a write that never completed): kv's Open leaves it out", f.Name, f.Torn))
		}
	}
	recs, errs := v.WALInEngine()
	for _, err := range errs {
		probs = append(probs, problem{"WAL in " + v.Engine, err, "kv's Open fails on it (ErrCorrupt): restore the store from a backup"})
	}
	sum := fmt.Sprintf("%d segments, %d blocks, %d cells; %d WAL files (%d records), %d WAL records in %s", len(segs), blocks, cells, len(files), records, len(recs), v.Engine)
	return probs, notes, sum, nil
}

// verifySegment checks a segment's blocks against each other and its meta.
func verifySegment(v *inspect.Store, s *inspect.Segment, bar *progress) ([]problem, []string) {
	var probs []problem
	var notes []string
	m := s.Meta
	seg := fmt.Sprintf("segment %d", s.ID)
	refs := s.Blocks
	if len(s.Extra) > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d blocks after its meta's last key (an extension cut short): kv's Open deletes them", seg, len(s.Extra)))
	}
	var cells, keys, tombstones uint64
	var prevKey, firstKey []byte
	var sk blockenc.Seeker
	var size uint64
	for i, ref := range refs {
		bar.step(fmt.Sprintf("segment %d block %d", s.ID, i))
		b, err := v.Block(ref)
		where := fmt.Sprintf("%s block %d (key %s, %d bytes)", seg, i, quote(ref.Last), len(b))
		if err != nil {
			probs = append(probs, problem{where, err, repairBlock})
			continue
		}
		size += uint64(len(b))
		d := s.Dict(i)
		if err := blockenc.VerifyDict(b, d); err != nil {
			probs = append(probs, problem{where, err, repairBlock})
			continue
		}
		if err := sk.InitDict(b, d); err != nil {
			probs = append(probs, problem{where, err, repairBlock})
			continue
		}
		var last []byte
		for ok := sk.First(); ok; ok = sk.Next() {
			c := sk.Cell()
			switch {
			case prevKey == nil || !bytes.Equal(c.Key, prevKey):
				if prevKey != nil && !keyBefore(prevKey, c.Key) {
					probs = append(probs, problem{where, fmt.Errorf("%w: key %s does not sort after the previous block's %s", errStore, quote(c.Key), quote(prevKey)), repairBlock})
				}
				keys++
				prevKey = append(prevKey[:0], c.Key...)
				if !s.MayHold(i, c.Key) {
					probs = append(probs, problem{where, fmt.Errorf("%w: the key filter of the block's run says it does not hold key %s", errStore, quote(c.Key)), repairFilter})
				}
			}
			if firstKey == nil {
				firstKey = append([]byte{}, c.Key...)
			}
			if c.Seq < m.MinSeq || c.Seq > m.MaxSeq {
				probs = append(probs, problem{where, fmt.Errorf("%w: key %s seq %d outside the meta's seqs %d..%d", errStore, quote(c.Key), c.Seq, m.MinSeq, m.MaxSeq), repairCount})
			}
			if c.Kind == blockenc.KindDelete {
				tombstones++
			}
			cells++
			last = c.Key
		}
		if err := sk.Err(); err != nil {
			probs = append(probs, problem{where, err, repairBlock})
			continue
		}
		if !bytes.Equal(last, ref.Last) {
			probs = append(probs, problem{where, fmt.Errorf("%w: the block's last key is %s, its Badger key says %s", errStore, quote(last), quote(ref.Last)), repairCount})
		}
	}
	if len(refs) != int(m.Blocks) {
		probs = append(probs, problem{seg, fmt.Errorf("%w: %s", errStore, missingBlocks(m, refs, firstKey, cells)), repairCount})
		return probs, notes
	}
	for _, c := range []struct {
		what      string
		got, want uint64
	}{{"cells", cells, m.Cells}, {"keys", keys, m.Keys}, {"tombstones", tombstones, m.Tombstones}} {
		if c.got != c.want && (c.what != "tombstones" || m.Version >= 4) {
			probs = append(probs, problem{seg, fmt.Errorf("%w: the blocks hold %d %s, the meta counts %d", errStore, c.got, c.what, c.want), repairCount})
		}
	}
	if size != m.Bytes {
		probs = append(probs, problem{seg, fmt.Errorf("%w: the blocks hold %d bytes, the meta counts %d", errStore, size, m.Bytes), repairCount})
	}
	if cells > 0 && !bytes.Equal(firstKey, m.FirstKey) {
		probs = append(probs, problem{seg, fmt.Errorf("%w: the first key is %s, the meta says %s", errStore, quote(firstKey), quote(m.FirstKey)), repairCount})
	}
	return probs, notes
}

// missingBlocks says which blocks of a segment are missing, as far as
// the keys tell: the first (its first key is not the meta's), the last
// (the last block key is not the meta's last key), or some between.
func missingBlocks(m *inspect.Meta, refs []inspect.BlockRef, firstKey []byte, cells uint64) string {
	n := int(m.Blocks) - len(refs)
	if n < 0 {
		return fmt.Sprintf("%d blocks found, the meta counts %d", len(refs), m.Blocks)
	}
	where := "neither the first nor the last (the block keys do not tell which)"
	switch {
	case len(refs) == 0:
		where = "all of them"
	case !bytes.Equal(firstKey, m.FirstKey):
		where = fmt.Sprintf("block 0 (the meta's first key %s is in no block)", quote(m.FirstKey))
	case !bytes.Equal(refs[len(refs)-1].Last, m.LastKey):
		where = fmt.Sprintf("block %d, the last (ending at the meta's last key %s)", m.Blocks-1, quote(m.LastKey))
	}
	return fmt.Sprintf("%d of %d blocks missing: %s; the blocks found hold %d of the meta's %d cells", n, m.Blocks, where, cells, m.Cells)
}
