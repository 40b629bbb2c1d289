package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kvenc/kvenc/blockenc"
)

const verifySynopsis = `DIR [--prefix P]

Reads every segment meta, every block (checksum, structure, cell order,
against the meta's counts and key range), every WAL file and WAL record and
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
	repairBlock = "the block's cells cannot be read back (reads of its keys and every compaction of its segment fail with ErrCorrupt): restore the store from a backup"
	repairMeta  = "kv's Open refuses a store with a bad meta (ErrCorrupt) and a segment's blocks cannot be read without it: restore the store from a backup"
	repairCount = "the segment's blocks and meta disagree (Open fails with ErrCorrupt): restore the store from a backup"
	repairWAL   = "kv's Open fails on it (ErrCorrupt); truncating the file at that offset drops that write and the later ones in the file, which were acknowledged: restore from a backup if they matter"
)

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", verifySynopsis, stderr)
	v, err := openStoreArgs(fs, args)
	if err != nil {
		return err
	}
	defer v.close()
	probs, notes, sum, err := verifyStore(v, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "store %s prefix %q, key layout %d: %s\n", v.dir, v.prefix, keyLayout, sum)
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

// errFound: verify found problems (exit status 1, reported on stdout).
var errFound = errors.New("problems found")

// verifyStore checks everything and returns the problems, notes (things
// kv's Open cleans up by itself) and a summary line.
func verifyStore(v *storeView, stderr io.Writer) ([]problem, []string, string, error) {
	segs, err := v.segments()
	if err != nil {
		return nil, nil, "", err
	}
	var probs []problem
	var notes []string
	nblocks := 0
	for _, s := range segs {
		nblocks += len(s.blocks)
	}
	bar := newProgress(stderr, nblocks)
	defer bar.done()
	var cells, blocks int
	for _, s := range segs {
		switch {
		case s.meta == nil && s.metaErr == nil:
			notes = append(notes, fmt.Sprintf("segment %d: %d blocks without a meta (a flush or compaction cut short): kv's Open deletes them", s.id, len(s.blocks)))
			continue
		case s.metaErr != nil:
			probs = append(probs, problem{fmt.Sprintf("segment %d", s.id), s.metaErr, repairMeta})
			continue
		}
		sp, sn := verifySegment(v, s, bar)
		probs, notes = append(probs, sp...), append(notes, sn...)
		cells += int(s.meta.cells)
		blocks += int(s.meta.blocks)
	}
	files := v.walFiles()
	records := 0
	for _, f := range files {
		records += len(f.records)
		if f.err != nil {
			probs = append(probs, problem{f.name, f.err, repairWAL})
		}
		if f.torn > 0 {
			notes = append(notes, fmt.Sprintf("%s: its last %d bytes are a frame cut short (a write that never completed): kv's Open leaves it out", f.name, f.torn))
		}
	}
	recs, errs := v.walInBadger()
	for _, err := range errs {
		probs = append(probs, problem{"WAL in Badger", err, "kv's Open fails on it (ErrCorrupt): restore the store from a backup"})
	}
	sum := fmt.Sprintf("%d segments, %d blocks, %d cells; %d WAL files (%d records), %d WAL records in Badger", len(segs), blocks, cells, len(files), records, len(recs))
	return probs, notes, sum, nil
}

// verifySegment checks a segment's blocks against each other and its meta.
func verifySegment(v *storeView, s *storeSeg, bar *progress) ([]problem, []string) {
	var probs []problem
	var notes []string
	m := s.meta
	seg := fmt.Sprintf("segment %d", s.id)
	refs := s.blocks
	// Blocks after the meta's last key: an extension cut short.
	live := len(refs)
	for live > 0 && bytes.Compare(refs[live-1].last, m.lastKey) > 0 {
		live--
	}
	if live < len(refs) {
		notes = append(notes, fmt.Sprintf("%s: %d blocks after its meta's last key (an extension cut short): kv's Open deletes them", seg, len(refs)-live))
		refs = refs[:live]
	}
	dicts := make([]*blockenc.Dict, len(m.parts))
	for i, pt := range m.parts {
		if len(pt.dict) > 0 {
			d, err := blockenc.NewDict(pt.dict)
			if err != nil {
				probs = append(probs, problem{fmt.Sprintf("%s meta, part %d", seg, i), err, repairMeta})
			}
			dicts[i] = d
		}
	}
	var cells, keys, tombstones uint64
	var prevKey, firstKey []byte
	var sk blockenc.Seeker
	for i, ref := range refs {
		bar.step(fmt.Sprintf("segment %d block %d", s.id, i))
		where := fmt.Sprintf("%s block %d (key %s, %d bytes)", seg, i, quote(ref.last), ref.size)
		b, err := v.block(ref)
		if err != nil {
			probs = append(probs, problem{where, err, repairBlock})
			continue
		}
		d := dicts[partOf(m, i)]
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
				if prevKey != nil && !bytesBefore(prevKey, c.Key) {
					probs = append(probs, problem{where, fmt.Errorf("%w: key %s does not sort after the previous block's %s", errCorrupt, quote(c.Key), quote(prevKey)), repairBlock})
				}
				keys++
				prevKey = append(prevKey[:0], c.Key...)
			}
			if firstKey == nil {
				firstKey = append([]byte{}, c.Key...)
			}
			if c.Seq < m.minSeq || c.Seq > m.maxSeq {
				probs = append(probs, problem{where, fmt.Errorf("%w: key %s seq %d outside the meta's seqs %d..%d", errCorrupt, quote(c.Key), c.Seq, m.minSeq, m.maxSeq), repairCount})
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
		if !bytes.Equal(last, ref.last) {
			probs = append(probs, problem{where, fmt.Errorf("%w: the block's last key is %s, its Badger key says %s", errCorrupt, quote(last), quote(ref.last)), repairCount})
		}
	}
	if len(refs) != int(m.blocks) {
		probs = append(probs, problem{seg, fmt.Errorf("%w: %s", errCorrupt, missingBlocks(m, refs, firstKey, cells)), repairCount})
		return probs, notes
	}
	for _, c := range []struct {
		what      string
		got, want uint64
	}{{"cells", cells, m.cells}, {"keys", keys, m.keys}, {"tombstones", tombstones, m.tombstones}} {
		if c.got != c.want && (c.what != "tombstones" || m.version >= 4) {
			probs = append(probs, problem{seg, fmt.Errorf("%w: the blocks hold %d %s, the meta counts %d", errCorrupt, c.got, c.what, c.want), repairCount})
		}
	}
	var size uint64
	for _, r := range refs {
		size += uint64(r.size)
	}
	if size != m.bytes {
		probs = append(probs, problem{seg, fmt.Errorf("%w: the blocks hold %d bytes, the meta counts %d", errCorrupt, size, m.bytes), repairCount})
	}
	if cells > 0 && !bytes.Equal(firstKey, m.firstKey) {
		probs = append(probs, problem{seg, fmt.Errorf("%w: the first key is %s, the meta says %s", errCorrupt, quote(firstKey), quote(m.firstKey)), repairCount})
	}
	return probs, notes
}

// missingBlocks says which blocks of a segment are missing, as far as
// the keys tell: the first (its first key is not the meta's), the last
// (the last block key is not the meta's last key), or some between.
func missingBlocks(m *segMeta, refs []blockRef, firstKey []byte, cells uint64) string {
	n := int(m.blocks) - len(refs)
	if n < 0 {
		return fmt.Sprintf("%d blocks found, the meta counts %d", len(refs), m.blocks)
	}
	where := "neither the first nor the last (the block keys do not tell which)"
	switch {
	case len(refs) == 0:
		where = "all of them"
	case !bytes.Equal(firstKey, m.firstKey):
		where = fmt.Sprintf("block 0 (the meta's first key %s is in no block)", quote(m.firstKey))
	case !bytes.Equal(refs[len(refs)-1].last, m.lastKey):
		where = fmt.Sprintf("block %d, the last (ending at the meta's last key %s)", m.blocks-1, quote(m.lastKey))
	}
	return fmt.Sprintf("%d of %d blocks missing: %s; the blocks found hold %d of the meta's %d cells", n, m.blocks, where, cells, m.cells)
}
