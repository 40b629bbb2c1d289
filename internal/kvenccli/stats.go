package kvenccli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/inspect"
)

const statsSynopsis = `STORE [--prefix P] [--json] [--blocks]

Describes the kvenc store in DIR, opened read-only, from its registry entry,
segment metas, block keys and WAL files: segments, blocks, cells, live and
other bytes, how the blocks are made, dictionary sizes, what the WAL holds,
the key layout and format versions. It reads no block unless --blocks asks
for the value form of each (a read of every block's head).`

// storeStats is what stats reports (and --json writes).
type storeStats struct {
	Dir             string          `json:"dir"`
	Engine          string          `json:"engine"`
	Prefix          string          `json:"prefix"`
	KeyLayout       int             `json:"key_layout"`
	MetaVersions    map[string]int  `json:"meta_versions"` // "v4" -> segments
	Segments        int             `json:"segments"`
	Blocks          int             `json:"blocks"`
	Cells           uint64          `json:"cells"`
	Tombstones      uint64          `json:"tombstones"`
	RangeTombstones int             `json:"range_tombstones"`
	BlockBytes      int64           `json:"block_bytes"`
	MetaBytes       int64           `json:"meta_bytes"`
	DictBytes       int64           `json:"dict_bytes"`
	Dicts           int             `json:"dicts"`
	FilterBytes     int64           `json:"filter_bytes"`
	Filters         int             `json:"filters"`
	DiskBytes       int64           `json:"disk_bytes"`  // every file in DIR (0 for a store in no directory)
	LiveBytes       int64           `json:"live_bytes"`  // blocks, metas, dictionaries and key filters of the segments
	OtherBytes      int64           `json:"other_bytes"` // disk - live: Badger's own files, space its GC has not given back, WAL files
	GarbageBlocks   int             `json:"garbage_blocks"`
	Settings        []settingsGroup `json:"settings"`
	BlockForms      []formGroup     `json:"block_forms,omitempty"`
	SegmentList     []segStats      `json:"segment_list"`
	WALFiles        []walFileStats  `json:"wal_files"`
	WALInEngine     walStats        `json:"wal_in_engine"`
	Problems        []string        `json:"problems,omitempty"`
}

type settingsGroup struct {
	Settings string `json:"settings"`
	Segments int    `json:"segments"`
	Blocks   int    `json:"blocks"`
	Bytes    int64  `json:"bytes"`
}

type formGroup struct {
	Form   string `json:"form"`
	Blocks int    `json:"blocks"`
	Bytes  int64  `json:"bytes"`
}

type segStats struct {
	ID              uint64 `json:"id"`
	MetaVersion     int    `json:"meta_version"`
	Blocks          int    `json:"blocks"`
	Cells           uint64 `json:"cells"`
	Keys            uint64 `json:"keys"`
	Tombstones      uint64 `json:"tombstones"`
	RangeTombstones int    `json:"range_tombstones"`
	Bytes           int64  `json:"bytes"`
	MinSeq          uint64 `json:"min_seq"`
	MaxSeq          uint64 `json:"max_seq"`
	WALSeq          uint64 `json:"wal_seq"`
	Parts           int    `json:"parts"`
	DictBytes       int    `json:"dict_bytes"`
	FilterBytes     int    `json:"filter_bytes"`
	FirstKey        string `json:"first_key"`
	LastKey         string `json:"last_key"`
}

type walStats struct {
	Records int    `json:"records"`
	Bytes   int    `json:"bytes"`
	Puts    int    `json:"puts"`
	Deletes int    `json:"deletes"`
	Ranges  int    `json:"range_deletes"`
	MinSeq  uint64 `json:"min_seq"`
	MaxSeq  uint64 `json:"max_seq"`
}

type walFileStats struct {
	Name string `json:"name"`
	walStats
	TornBytes int    `json:"torn_bytes,omitempty"`
	Err       string `json:"error,omitempty"`
}

func (w *walStats) add(r inspect.WALRecord) {
	if w.Records == 0 || r.Seq < w.MinSeq {
		w.MinSeq = r.Seq
	}
	w.MaxSeq = max(w.MaxSeq, r.Seq)
	w.Records++
	w.Bytes += r.Bytes
	for _, op := range r.Ops {
		switch {
		case op.Ranged:
			w.Ranges++
		case op.Kind == blockenc.KindDelete:
			w.Deletes++
		default:
			w.Puts++
		}
	}
}

func (c *cli) runStats(args []string, stdout, stderr io.Writer) error {
	fs := c.newFlagSet("stats", statsSynopsis, stderr)
	asJSON := fs.Bool("json", false, "write JSON")
	blocks := fs.Bool("blocks", false, "read every block's head for its value form")
	v, err := c.openStore(fs, args)
	if err != nil {
		return err
	}
	defer v.Close()
	st, err := collectStats(v, *blocks, stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printStats(stdout, st)
	return nil
}

// settingsName describes a version 4 meta's block settings.
func settingsName(m *inspect.Meta) string {
	if m.Settings == nil {
		return fmt.Sprintf("unknown (meta version %d does not record them)", m.Version)
	}
	s, _, err := m.BlockSettings()
	if err != nil {
		return fmt.Sprintf("unreadable: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v level %d, restart %d", s.Encoding, s.Compression, s.CompressionLevel, s.RestartInterval)
	if s.DedupeValues {
		b.WriteString(", dedupe")
	}
	if s.IntValues {
		b.WriteString(", int values")
	}
	fmt.Fprintf(&b, ", %s blocks", sizeText(int64(s.BlockSize)))
	if s.DictSize >= 0 {
		fmt.Fprintf(&b, ", dictionaries up to %s", sizeText(int64(s.DictSize)))
	}
	return b.String()
}

func collectStats(v *Target, readBlocks bool, stderr io.Writer) (*storeStats, error) {
	segs, err := v.Segments()
	if err != nil {
		return nil, err
	}
	st := &storeStats{Dir: v.Name, Engine: v.Engine, Prefix: string(v.Prefix()), KeyLayout: inspect.KeyLayout, MetaVersions: map[string]int{}}
	var dictKeyBytes int64 // dictionaries under keys of their own (meta version 5)
	settings := map[string]*settingsGroup{}
	forms := map[string]*formGroup{}
	var nblocks int
	for _, s := range segs {
		nblocks += len(s.Blocks)
	}
	bar := newProgress(stderr, nblocks)
	defer bar.done()
	for _, s := range segs {
		if s.Meta == nil {
			if s.MetaErr != nil {
				st.Problems = append(st.Problems, fmt.Sprintf("segment %d: %v", s.ID, s.MetaErr))
			}
			st.GarbageBlocks += len(s.Blocks)
			continue
		}
		m := s.Meta
		ss := segStats{ID: s.ID, MetaVersion: m.Version, Cells: m.Cells, Keys: m.Keys, Tombstones: m.Tombstones,
			RangeTombstones: len(m.Dels), MinSeq: m.MinSeq, MaxSeq: m.MaxSeq, WALSeq: m.WALSeq, Parts: len(m.Parts),
			FirstKey: quote(m.FirstKey), LastKey: quote(m.LastKey)}
		st.GarbageBlocks += len(s.Extra)
		ss.Blocks, ss.Bytes = len(s.Blocks), int64(m.Bytes)
		for i, r := range s.Blocks {
			if readBlocks {
				bar.step(fmt.Sprintf("segment %d block %d", s.ID, i))
				b, err := v.Block(r)
				form := "unreadable"
				if err == nil {
					form, err = blockForm(b)
				}
				if err != nil {
					st.Problems = append(st.Problems, fmt.Sprintf("segment %d block %d: %v", s.ID, i, err))
				}
				g := forms[form]
				if g == nil {
					g = &formGroup{Form: form}
					forms[form] = g
				}
				g.Blocks++
				g.Bytes += int64(len(b))
			}
		}
		if ss.Blocks != int(m.Blocks) {
			st.Problems = append(st.Problems, fmt.Sprintf("segment %d: its meta counts %d blocks, %d found (kvenc verify tells more)", s.ID, m.Blocks, ss.Blocks))
		}
		for _, pt := range m.Parts {
			if len(pt.Dict) > 0 {
				ss.DictBytes += len(pt.Dict)
				st.Dicts++
			}
		}
		for _, r := range m.Filters {
			if r.Len > 0 {
				ss.FilterBytes += int(r.Len)
				st.Filters++
			}
		}
		name := settingsName(m)
		g := settings[name]
		if g == nil {
			g = &settingsGroup{Settings: name}
			settings[name] = g
		}
		g.Segments++
		g.Blocks += ss.Blocks
		g.Bytes += ss.Bytes
		st.MetaVersions[fmt.Sprintf("v%d", m.Version)]++
		st.Segments++
		st.Blocks += ss.Blocks
		st.Cells += m.Cells
		st.Tombstones += m.Tombstones
		st.RangeTombstones += len(m.Dels)
		st.BlockBytes += ss.Bytes
		st.MetaBytes += int64(s.MetaBytes)
		st.DictBytes += int64(ss.DictBytes)
		st.FilterBytes += int64(ss.FilterBytes)
		if m.Version >= 5 {
			// Stored under keys of their own, not in the meta.
			dictKeyBytes += int64(ss.DictBytes)
		}
		st.SegmentList = append(st.SegmentList, ss)
	}
	for _, g := range settings {
		st.Settings = append(st.Settings, *g)
	}
	slices.SortFunc(st.Settings, func(a, b settingsGroup) int { return strings.Compare(a.Settings, b.Settings) })
	for _, g := range forms {
		st.BlockForms = append(st.BlockForms, *g)
	}
	slices.SortFunc(st.BlockForms, func(a, b formGroup) int { return strings.Compare(a.Form, b.Form) })
	for _, f := range v.WALFiles() {
		fs := walFileStats{Name: f.Name, TornBytes: f.Torn}
		for _, r := range f.Records {
			fs.add(r)
		}
		if f.Err != nil {
			fs.Err = f.Err.Error()
			st.Problems = append(st.Problems, fmt.Sprintf("%s: %v", f.Name, f.Err))
		}
		st.WALFiles = append(st.WALFiles, fs)
	}
	recs, errs := v.WALInEngine()
	for _, r := range recs {
		st.WALInEngine.add(r)
	}
	for _, err := range errs {
		st.Problems = append(st.Problems, err.Error())
	}
	st.LiveBytes = st.BlockBytes + st.MetaBytes + dictKeyBytes + st.FilterBytes
	if v.Dir() != "" {
		st.DiskBytes = diskBytes(v.Dir())
		st.OtherBytes = st.DiskBytes - st.LiveBytes
	}
	return st, nil
}

// sizeText writes n bytes with a binary unit.
func sizeText(n int64) string {
	switch {
	case n >= 10<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func perCell(n int64, cells uint64) float64 {
	if cells == 0 {
		return 0
	}
	return float64(n) / float64(cells)
}

func printStats(w io.Writer, st *storeStats) {
	var versions []string
	for v, n := range st.MetaVersions {
		versions = append(versions, fmt.Sprintf("%s x%d", v, n))
	}
	slices.Sort(versions)
	fmt.Fprintf(w, "store      %s prefix %q: key layout %d, segment metas %s\n", st.Dir, st.Prefix, st.KeyLayout, strings.Join(versions, " "))
	fmt.Fprintf(w, "segments   %d: %d blocks, %d cells, %d tombstones, %d range tombstones\n", st.Segments, st.Blocks, st.Cells, st.Tombstones, st.RangeTombstones)
	fmt.Fprintf(w, "bytes      blocks %s (%.2f per cell), metas %s, %d dictionaries %s, %d key filters %s\n", sizeText(st.BlockBytes), perCell(st.BlockBytes, st.Cells), sizeText(st.MetaBytes), st.Dicts, sizeText(st.DictBytes), st.Filters, sizeText(st.FilterBytes))
	if st.DiskBytes > 0 {
		fmt.Fprintf(w, "disk       %s: live %s (blocks, metas, dictionaries and key filters), other %s (Badger's own files, space its GC has not given back, WAL files)\n", sizeText(st.DiskBytes), sizeText(st.LiveBytes), sizeText(st.OtherBytes))
	} else {
		fmt.Fprintf(w, "live       %s (blocks, metas, dictionaries and key filters)\n", sizeText(st.LiveBytes))
	}
	fmt.Fprintf(w, "garbage    %d blocks (without a meta, or after their meta's last key: kv's Open deletes them)\n", st.GarbageBlocks)
	for _, g := range st.Settings {
		fmt.Fprintf(w, "settings   %s: %d segments, %d blocks, %s\n", g.Settings, g.Segments, g.Blocks, sizeText(g.Bytes))
	}
	for _, g := range st.BlockForms {
		fmt.Fprintf(w, "blocks     %s: %d blocks, %s\n", g.Form, g.Blocks, sizeText(g.Bytes))
	}
	fmt.Fprintf(w, "\n%8s %4s %7s %9s %9s %7s %6s %10s %6s %15s %7s  %s\n", "segment", "meta", "blocks", "cells", "keys", "tombs", "ranges", "bytes", "dicts", "seqs", "walSeq", "keys from .. to")
	for _, s := range st.SegmentList {
		fmt.Fprintf(w, "%8d %4s %7d %9d %9d %7d %6d %10s %6s %15s %7d  %s .. %s\n", s.ID, fmt.Sprintf("v%d", s.MetaVersion), s.Blocks, s.Cells, s.Keys, s.Tombstones, s.RangeTombstones,
			sizeText(s.Bytes), sizeText(int64(s.DictBytes)), fmt.Sprintf("%d..%d", s.MinSeq, s.MaxSeq), s.WALSeq, s.FirstKey, s.LastKey)
	}
	fmt.Fprintf(w, "\nWAL files  %d\n", len(st.WALFiles))
	for _, f := range st.WALFiles {
		fmt.Fprintf(w, "  %s: %s\n", f.Name, walText(f.walStats))
		if f.TornBytes > 0 {
			fmt.Fprintf(w, "    its last %d bytes are a frame cut short (a write that never completed)\n", f.TornBytes)
		}
		if f.Err != "" {
			fmt.Fprintf(w, "    %s\n", f.Err)
		}
	}
	fmt.Fprintf(w, "WAL in %s  %s\n", st.Engine, walText(st.WALInEngine))
	for _, p := range st.Problems {
		fmt.Fprintf(w, "PROBLEM %s\n", p)
	}
}

func walText(s walStats) string {
	if s.Records == 0 {
		return "no records"
	}
	return fmt.Sprintf("%d records of %s, seqs %d..%d: %d puts, %d deletes, %d range deletes", s.Records, sizeText(int64(s.Bytes)), s.MinSeq, s.MaxSeq, s.Puts, s.Deletes, s.Ranges)
}
