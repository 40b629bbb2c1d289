// Package tikvbench measures kvenc's Store on TiKV (package kvtikv)
// against the plain way of keeping cells in TiKV, one key per cell
// through client-go's transactions, on the same cells and the same
// cluster: client-go's in-process mock, or a real cluster by its PD
// addresses.
package tikvbench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kvtikv"
	"github.com/pingcap/log"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/tikvrpc"
	"github.com/tikv/client-go/v2/txnkv"
	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"
	"go.uber.org/zap"
)

// Options of one run.
type Options struct {
	// PD lists a real cluster's PD addresses; empty: client-go's
	// in-process mock.
	PD []string
	// Cache is kvenc's block cache.
	Cache int64
	// Gets and Seeks are the random point reads and SeekGE+10s timed.
	Gets, Seeks int
	// Concurrent is the cells the concurrent-writer pass writes per way.
	Concurrent int
	// Rounds of the reads and of the concurrent writers, the two ways
	// alternated; the medians are kept.
	Rounds int
	Seed   uint64
}

// Way is what one way of storing the cells measured.
type Way struct {
	Name string
	// Keys and Bytes are the TiKV keys under the way's prefix and the sum
	// of their key and value lengths, read back after the load.
	Keys, Bytes int64
	Load        time.Duration
	// GetP50 and GetP99 are the latencies of random point reads; Scan
	// the time per cell of a full scan; Seek10 the time of a SeekGE and
	// 10 Nexts.
	GetP50, GetP99 time.Duration
	Scan           float64 // ns per cell
	Seek10         time.Duration
	// ScanRead is the bytes of the read responses (Get, BatchGet, Scan)
	// TiKV sent during the full scan: keys and values fetched, with
	// their framing. 0 on a real cluster, where it is not counted.
	ScanRead int64
	// PutsPerSec is the cells per second of 8 goroutines writing
	// batches of 10.
	PutsPerSec float64
}

// Result holds both ways.
type Result struct {
	Cluster      string // "mock" or the PD addresses
	Cells        int
	Kvenc, Plain Way
}

// batch is the plain way's transaction size, and kvenc's Apply batch in
// the load.
const batch = 1000

// Quiet silences client-go's logs (pingcap/log).
func Quiet() {
	log.ReplaceGlobals(zap.NewNop(), &log.ZapProperties{Level: zap.NewAtomicLevelAt(zap.FatalLevel)})
}

// readCounter is a TiKV client that counts the bytes of the read
// responses (Get, BatchGet, Scan) it receives.
type readCounter struct {
	tikv.Client
	bytes atomic.Int64
}

func (c *readCounter) SendRequest(ctx context.Context, addr string, req *tikvrpc.Request, timeout time.Duration) (*tikvrpc.Response, error) {
	resp, err := c.Client.SendRequest(ctx, addr, req, timeout)
	if err == nil && resp != nil {
		switch req.Type {
		case tikvrpc.CmdGet, tikvrpc.CmdBatchGet, tikvrpc.CmdScan:
			c.bytes.Add(int64(resp.GetSize()))
		}
	}
	return resp, err
}

// read returns the bytes counted so far (0 without a counter).
func (c *readCounter) read() int64 {
	if c == nil {
		return 0
	}
	return c.bytes.Load()
}

// connect returns the cluster's KVStore, what closes it, and on the mock
// the counter of the bytes read from it.
func connect(ctx context.Context, pd []string) (*tikv.KVStore, func(), *readCounter, error) {
	if len(pd) == 0 {
		rpc, cluster, pdc, err := testutils.NewMockTiKV("", nil)
		if err != nil {
			return nil, nil, nil, err
		}
		testutils.BootstrapWithSingleStore(cluster)
		rc := &readCounter{}
		store, err := tikv.NewTestTiKVStore(rpc, pdc, func(c tikv.Client) tikv.Client { rc.Client = c; return rc }, nil, 0)
		if err != nil {
			return nil, nil, nil, err
		}
		return store, func() { _ = store.Close() }, rc, nil
	}
	type dialed struct {
		c   *txnkv.Client
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		c, err := txnkv.NewClient(pd)
		ch <- dialed{c, err}
	}()
	select {
	case d := <-ch:
		if d.err != nil {
			return nil, nil, nil, fmt.Errorf("connect to PD %s: %w", strings.Join(pd, ","), d.err)
		}
		return d.c.KVStore, func() { _ = d.c.Close() }, nil, nil
	case <-ctx.Done():
		return nil, nil, nil, fmt.Errorf("connect to PD %s: %w", strings.Join(pd, ","), ctx.Err())
	}
}

// Run loads cells (sorted by key, distinct) both ways and measures them.
// Each run writes under prefixes of its own (a real cluster keeps them:
// the caller's to delete).
func Run(ctx context.Context, cells []dataset.KV, o Options) (Result, error) {
	store, closeStore, rc, err := connect(ctx, o.PD)
	if err != nil {
		return Result{}, err
	}
	defer closeStore()
	r := Result{Cluster: "in-process mock (client-go testutils)", Cells: len(cells)}
	if len(o.PD) > 0 {
		r.Cluster = "PD " + strings.Join(o.PD, ",")
	}
	run := fmt.Sprintf("%x", time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	getKeys := pick(cells, o.Gets, rng)
	seekKeys := pick(cells, o.Seeks, rng)
	k := &kvencWay{store: store, opts: kvencOptions("kvbench-kvenc-"+run, o.Cache)}
	p := &plainWay{store: store, p: []byte("kvbench-plain-" + run + "/")}
	r.Kvenc.Name, r.Plain.Name = "kvenc on TiKV", "plain TiKV (a key per cell)"
	if err := k.load(&r.Kvenc, cells); err != nil {
		return r, fmt.Errorf("kvenc on TiKV: %w", err)
	}
	defer k.close()
	if err := p.load(&r.Plain, cells); err != nil {
		return r, fmt.Errorf("plain TiKV: %w", err)
	}
	var kr, pr []Way
	cw := cells[:min(o.Concurrent, len(cells))]
	for i := range max(o.Rounds, 1) {
		var kw, pw Way
		if err := reads(k, &kw, getKeys, seekKeys, len(cells), rc); err != nil {
			return r, fmt.Errorf("kvenc on TiKV: %w", err)
		}
		if err := reads(p, &pw, getKeys, seekKeys, len(cells), rc); err != nil {
			return r, fmt.Errorf("plain TiKV: %w", err)
		}
		tag := fmt.Sprintf("%sc%d/", writeTag, i) // new keys each round, after the cells
		if kw.PutsPerSec, err = concurrently(cw, func(part []dataset.KV) error { return k.apply(tag, part) }); err != nil {
			return r, fmt.Errorf("kvenc on TiKV: %w", err)
		}
		if pw.PutsPerSec, err = concurrently(cw, func(part []dataset.KV) error { return p.commit(tag, part) }); err != nil {
			return r, fmt.Errorf("plain TiKV: %w", err)
		}
		kr, pr = append(kr, kw), append(pr, pw)
	}
	medians(&r.Kvenc, kr)
	medians(&r.Plain, pr)
	return r, nil
}

// medians sets w's read and write figures to the medians of rounds.
func medians(w *Way, rounds []Way) {
	med := func(f func(Way) float64) float64 {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	w.GetP50 = time.Duration(med(func(r Way) float64 { return float64(r.GetP50) }))
	w.GetP99 = time.Duration(med(func(r Way) float64 { return float64(r.GetP99) }))
	w.Scan = med(func(r Way) float64 { return r.Scan })
	w.ScanRead = int64(med(func(r Way) float64 { return float64(r.ScanRead) }))
	w.Seek10 = time.Duration(med(func(r Way) float64 { return float64(r.Seek10) }))
	w.PutsPerSec = med(func(r Way) float64 { return r.PutsPerSec })
}

// writeTag starts the keys of the concurrent writers, above every cell
// (lineitem keys start with the high byte of an order key); scans stop
// below it.
const writeTag = "\xff\xff"

// way is one way of storing the cells, as the reads use it.
type way interface {
	get(k []byte) ([]byte, error)
	// scan counts the cells of a full scan.
	scan() (int, error)
	seek10(k []byte) error
}

// reads times Gets of getKeys, a full scan and SeekGE+10 at seekKeys.
func reads(wy way, w *Way, getKeys, seekKeys [][]byte, cells int, rc *readCounter) error {
	lat := make([]time.Duration, len(getKeys))
	for i, k := range getKeys {
		t := time.Now()
		v, err := wy.get(k)
		lat[i] = time.Since(t)
		if err != nil || len(v) == 0 {
			return fmt.Errorf("get %q: %v", k, err)
		}
	}
	w.GetP50, w.GetP99 = quantile(lat, 0.5), quantile(lat, 0.99)
	t := time.Now()
	read := rc.read()
	n, err := wy.scan()
	w.ScanRead = rc.read() - read
	if err != nil {
		return err
	}
	w.Scan = float64(time.Since(t).Nanoseconds()) / float64(max(n, 1))
	if n != cells {
		return fmt.Errorf("scan found %d cells, loaded %d", n, cells)
	}
	t = time.Now()
	for _, k := range seekKeys {
		if err := wy.seek10(k); err != nil {
			return err
		}
	}
	w.Seek10 = time.Since(t) / time.Duration(max(len(seekKeys), 1))
	return nil
}

func pick(cells []dataset.KV, n int, rng *rand.Rand) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = cells[rng.IntN(len(cells))].Key
	}
	return keys
}

// kvencOptions are kv's defaults with the given cache.
func kvencOptions(prefix string, cache int64) kv.Options {
	o := kv.DefaultOptions("")
	o.Prefix = []byte(prefix)
	o.CacheSize = cache
	return o
}

// kvencWay is kvenc's Store on TiKV.
type kvencWay struct {
	store *tikv.KVStore
	opts  kv.Options
	s     *kv.Store
}

// load writes the cells in batches of 1000, flushes, compacts and closes,
// counts what is stored and reopens (a cold cache).
func (k *kvencWay) load(w *Way, cells []dataset.KV) error {
	start := time.Now()
	s, err := kvtikv.Open(k.store, k.opts)
	if err != nil {
		return err
	}
	b := s.NewBatch()
	for i, c := range cells {
		b.Put(c.Key, c.Value)
		if b.Len() == batch || i == len(cells)-1 {
			if err := s.Apply(b); err != nil {
				return err
			}
			b.Reset()
		}
	}
	if err := s.Flush(); err != nil {
		return err
	}
	if err := s.Compact(); err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	w.Load = time.Since(start)
	if w.Keys, w.Bytes, err = stored(k.store, k.opts.Prefix); err != nil {
		return err
	}
	// The registry entry is the Store's too.
	reg, err := k.store.GetSnapshot(math.MaxUint64).Get(context.Background(), append([]byte("\xffkvenc/store/"), k.opts.Prefix...))
	if err != nil {
		return fmt.Errorf("registry entry: %w", err)
	}
	w.Keys++
	w.Bytes += int64(len("\xffkvenc/store/") + len(k.opts.Prefix) + len(reg.Value))
	k.s, err = kvtikv.Open(k.store, k.opts)
	return err
}

func (k *kvencWay) close() { _ = k.s.Close() }

func (k *kvencWay) get(key []byte) ([]byte, error) { return k.s.Get(key) }

func (k *kvencWay) scan() (int, error) {
	it := k.s.NewIterator(kv.IterOptions{UpperBound: []byte(writeTag)})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n, it.Close()
}

func (k *kvencWay) seek10(key []byte) error {
	it := k.s.NewIterator(kv.IterOptions{})
	ok := it.SeekGE(key)
	for j := 0; ok && j < 10; j++ {
		ok = it.Next()
	}
	return it.Close()
}

// apply writes cells under tag in one Apply.
func (k *kvencWay) apply(tag string, cells []dataset.KV) error {
	b := k.s.NewBatch()
	for _, c := range cells {
		b.Put(append([]byte(tag), c.Key...), c.Value)
	}
	return k.s.Apply(b)
}

// plainWay is one TiKV key per cell under p.
type plainWay struct {
	store *tikv.KVStore
	p     []byte
}

func (p *plainWay) load(w *Way, cells []dataset.KV) error {
	start := time.Now()
	for i := 0; i < len(cells); i += batch {
		if err := commitCells(context.Background(), p.store, p.p, cells[i:min(i+batch, len(cells))]); err != nil {
			return err
		}
	}
	w.Load = time.Since(start)
	var err error
	w.Keys, w.Bytes, err = stored(p.store, p.p)
	return err
}

func (p *plainWay) get(key []byte) ([]byte, error) {
	v, err := p.store.GetSnapshot(math.MaxUint64).Get(context.Background(), append(bytes.Clone(p.p), key...))
	return v.Value, err
}

func (p *plainWay) scan() (int, error) {
	snap, err := snapshot(p.store)
	if err != nil {
		return 0, err
	}
	it, err := snap.Iter(p.p, append(bytes.Clone(p.p), writeTag...))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	n := 0
	for it.Valid() {
		n++
		if err := it.Next(); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (p *plainWay) seek10(key []byte) error {
	snap, err := snapshot(p.store)
	if err != nil {
		return err
	}
	snap.SetScanBatchSize(11) // the seek and 10 Nexts in one scan request
	it, err := snap.Iter(append(bytes.Clone(p.p), key...), prefixEnd(p.p))
	if err != nil {
		return err
	}
	defer it.Close()
	for j := 0; it.Valid() && j < 10; j++ {
		if err := it.Next(); err != nil {
			return err
		}
	}
	return nil
}

// commit writes cells under p+tag in one transaction of its own.
func (p *plainWay) commit(tag string, cells []dataset.KV) error {
	return commitCells(context.Background(), p.store, append(bytes.Clone(p.p), tag...), cells)
}

// commitCells writes cells under p in one transaction.
func commitCells(ctx context.Context, store *tikv.KVStore, p []byte, cells []dataset.KV) error {
	txn, err := store.Begin()
	if err != nil {
		return err
	}
	for _, c := range cells {
		if err := txn.Set(append(bytes.Clone(p), c.Key...), c.Value); err != nil {
			return err
		}
	}
	return txn.Commit(ctx)
}

// snapshot returns a snapshot at a fresh timestamp (a KVSnapshot keeps
// what it read: one per measured read).
func snapshot(store *tikv.KVStore) (*txnsnapshot.KVSnapshot, error) {
	ts, err := store.CurrentTimestamp(oracle.GlobalTxnScope)
	if err != nil {
		return nil, err
	}
	return store.GetSnapshot(ts), nil
}

// stored counts the keys under p at the current timestamp and sums
// their key and value lengths.
func stored(store *tikv.KVStore, p []byte) (keys, bytes int64, err error) {
	snap, err := snapshot(store)
	if err != nil {
		return 0, 0, err
	}
	snap.SetScanBatchSize(1024)
	it, err := snap.Iter(p, prefixEnd(p))
	if err != nil {
		return 0, 0, err
	}
	defer it.Close()
	for it.Valid() {
		keys++
		bytes += int64(len(it.Key()) + len(it.Value()))
		if err := it.Next(); err != nil {
			return 0, 0, err
		}
	}
	return keys, bytes, nil
}

func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// writers is the goroutines of the concurrent-writer pass, perWrite the
// cells each write carries.
const writers, perWrite = 8, 10

// concurrently has 8 goroutines call write on successive groups of 10 of
// cells and returns the cells written per second.
func concurrently(cells []dataset.KV, write func([]dataset.KV) error) (float64, error) {
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	errs := make([]error, writers)
	start := time.Now()
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				lo := i
				i += perWrite
				next.Unlock()
				if lo >= len(cells) {
					return
				}
				if err := write(cells[lo:min(lo+perWrite, len(cells))]); err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return float64(len(cells)) / el.Seconds(), nil
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
