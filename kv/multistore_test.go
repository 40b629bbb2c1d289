package kv

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// multiPrefixes are prefixes of each other: their Stores share one DB.
var multiPrefixes = []string{"u", "us", "user", "users"}

// multiAppKeys are the app's own keys under and next to every prefix
// (outside the namespaces), and keys in the namespaces that are not in a
// Store's format (which the Stores report and leave alone).
func multiAppKeys() (app, foreign map[string]string) {
	app, foreign = map[string]string{}, map[string]string{}
	for i, p := range multiPrefixes {
		for j, k := range []string{p, p + "\x01", p + "s", p + "w00000000", p + "\xff", p + "/m", p[:len(p)-1] + "t"} {
			app[k] = fmt.Sprintf("app%d.%d", i, j)
		}
		for j, k := range []string{p + "\x00", p + "\x00app", p + "\x00s", p + "\x00w123"} {
			foreign[k] = fmt.Sprintf("foreign%d.%d", i, j)
		}
	}
	return app, foreign
}

func multiOptions(p string) Options {
	o := testOptions("")
	o.Prefix = []byte(p)
	o.CompactionTrigger = 2
	return o
}

func openMultiDB(t testing.TB, dir string) *badger.DB {
	t.Helper()
	db, err := badger.Open(smallBadger(badger.DefaultOptions(dir)).WithLogger(nil))
	require.NoError(t, err)
	return db
}

// multiRun drives the Stores and their models.
type multiRun struct {
	t      *testing.T
	dir    string
	db     *badger.DB
	stores []*Store
	models []model
	app    map[string]string // every key of the DB outside the Stores
}

func (r *multiRun) wrapAll() {
	r.stores = make([]*Store, len(multiPrefixes))
	for i, p := range multiPrefixes {
		s, err := Wrap(r.db, multiOptions(p))
		require.NoError(r.t, err, "Wrap %q", p)
		r.stores[i] = s
	}
}

func (r *multiRun) closeAll() {
	for _, s := range r.stores {
		require.NoError(r.t, s.Close())
	}
}

// check compares every Store with its model, and the DB outside the
// Stores' keys with the app's keys.
func (r *multiRun) check(step int) {
	for i, s := range r.stores {
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(r.t, err, "step %d store %q", step, multiPrefixes[i])
		require.Equal(r.t, r.models[i].rangeOf(nil, nil), got, "step %d store %q", step, multiPrefixes[i])
		n, _ := s.ForeignKeys()
		assert.Equal(r.t, int64(4), n, "store %q foreign keys", multiPrefixes[i])
	}
	all := dump(r.t, r.db)
	require.Equal(r.t, r.app, withoutOwnKeys(all), "step %d: app keys", step)
}

// withoutOwnKeys drops from m the keys in the format of one of the Stores
// and their registry entries.
func withoutOwnKeys(m map[string]string) map[string]string {
	out := map[string]string{}
next:
	for k, v := range m {
		for _, p := range multiPrefixes {
			if k == string(layout.RegistryKey([]byte(p))) || layout.NewKeys([]byte(p)).Own([]byte(k)) && strings.HasPrefix(k, p+"\x00") {
				continue next
			}
		}
		out[k] = v
	}
	return out
}

// Four Stores whose prefixes extend each other ("u", "us", "user",
// "users") in one DB, beside app keys under and next to every prefix and
// foreign keys in their namespaces: random writes to all of them, with
// flushes, compactions, reopens of a Store and of the DB; no key of any of
// them is lost or changed.
func TestMultiStoreModel(t *testing.T) {
	steps := 1500
	if testing.Short() {
		steps = 300
	}
	dir := t.TempDir()
	r := &multiRun{t: t, dir: dir, db: openMultiDB(t, dir)}
	app, foreign := multiAppKeys()
	setKeys(t, r.db, app)
	r.app = map[string]string{}
	for k, v := range app {
		r.app[k] = v
	}
	r.wrapAll()
	// The foreign keys go in after the Stores registered (a new Store
	// refuses a namespace that holds keys); they count from the next Open.
	setKeys(t, r.db, foreign)
	for k, v := range foreign {
		r.app[k] = v
	}
	r.closeAll()
	r.wrapAll()
	r.models = make([]model, len(multiPrefixes))
	for i := range r.models {
		r.models[i] = model{}
	}
	rng := rand.New(rand.NewPCG(15, 4))
	var flushes, compactions int64
	for step := 0; step < steps; step++ {
		i := rng.IntN(len(r.stores))
		s, m := r.stores[i], r.models[i]
		// The same keys in every Store: a Store that read another's keys
		// would show the other's values.
		k := fmt.Sprintf("k%02d", rng.IntN(60))
		switch op := rng.IntN(100); {
		case op < 55:
			v := fmt.Sprintf("%s-%d-%s", multiPrefixes[i], step, strings.Repeat("v", rng.IntN(30)))
			require.NoError(t, s.Put([]byte(k), []byte(v)))
			m[k] = v
		case op < 70:
			require.NoError(t, s.Delete([]byte(k)))
			delete(m, k)
		case op < 78:
			b := s.NewBatch()
			for n := rng.IntN(6); n >= 0; n-- {
				bk := fmt.Sprintf("k%02d", rng.IntN(60))
				if rng.IntN(3) == 0 {
					b.Delete([]byte(bk))
					delete(m, bk)
				} else {
					v := fmt.Sprintf("%s-b%d", multiPrefixes[i], step)
					b.Put([]byte(bk), []byte(v))
					m[bk] = v
				}
			}
			require.NoError(t, s.Apply(b))
		case op < 84:
			v, err := s.Get([]byte(k))
			requireGet(t, v, err, m, k, "step %d store %q", step, multiPrefixes[i])
		case op < 89:
			require.NoError(t, s.Flush())
		case op < 92:
			require.NoError(t, s.Compact())
		case op < 94:
			// The app writes its own keys next to the Stores'.
			k := multiPrefixes[rng.IntN(len(multiPrefixes))] + "\x01" + k
			v := fmt.Sprintf("app-%d", step)
			setKeys(t, r.db, map[string]string{k: v})
			r.app[k] = v
		case op < 97:
			st := s.Stats()
			flushes += st.Flushes
			compactions += st.Compactions
			require.NoError(t, s.Close())
			s, err := Wrap(r.db, multiOptions(multiPrefixes[i]))
			require.NoError(t, err)
			r.stores[i] = s
		default:
			for _, s := range r.stores {
				st := s.Stats()
				flushes += st.Flushes
				compactions += st.Compactions
			}
			r.closeAll()
			require.NoError(t, r.db.Close())
			r.db = openMultiDB(t, dir)
			r.wrapAll()
		}
		if step%25 == 0 {
			r.check(step)
		}
	}
	r.check(steps)
	for _, s := range r.stores {
		st := s.Stats()
		flushes += st.Flushes
		compactions += st.Compactions
	}
	t.Logf("%d steps: %d flushes, %d compactions", steps, flushes, compactions)
	assert.Positive(t, flushes)
	assert.Positive(t, compactions)
	r.closeAll()
	require.NoError(t, r.db.Close())
}

// The crash test of several Stores in one DB: a child process writes to
// all four and to app keys next to them, and is killed at a random
// moment; every acknowledged write of every Store and of the app is there
// after the reopen.

const multiCrashEnv = "KV_MULTI_CRASH_DIR"

func multiCrashChild(dir string, seed uint64) {
	db, err := badger.Open(smallBadger(badger.DefaultOptions(dir)).WithLogger(nil))
	if err != nil {
		fmt.Printf("E open: %v\n", err)
		os.Exit(3)
	}
	stores := make([]*Store, len(multiPrefixes))
	for i, p := range multiPrefixes {
		if stores[i], err = Wrap(db, multiOptions(p)); err != nil {
			fmt.Printf("E wrap %q: %v\n", p, err)
			os.Exit(3)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	for n := 0; ; n++ {
		i := rng.IntN(len(stores))
		k := fmt.Sprintf("k%02d", rng.IntN(60))
		v := fmt.Sprintf("%s-%d-%d", multiPrefixes[i], seed, n)
		var do func() error
		var line string
		switch r := rng.IntN(10); {
		case r < 6:
			line, do = fmt.Sprintf("P %d %s %s", i, k, v), func() error { return stores[i].Put([]byte(k), []byte(v)) }
		case r < 8:
			line, do = fmt.Sprintf("D %d %s", i, k), func() error { return stores[i].Delete([]byte(k)) }
		default:
			ak := multiPrefixes[i] + "\x01" + k
			line = fmt.Sprintf("A %d %s %s", i, k, v)
			do = func() error {
				return db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(ak), []byte(v)) })
			}
		}
		fmt.Printf("T %d %s\n", n, line)
		if err := do(); err != nil {
			fmt.Printf("E %d: %v\n", n, err)
			os.Exit(3)
		}
		fmt.Printf("K %d\n", n)
		switch {
		case n%89 == 88:
			_ = stores[i].Flush()
		case n%233 == 232:
			_ = stores[i].Compact()
		}
	}
}

// applyMulti applies a T line's write to the models.
func applyMulti(models []model, app map[string]string, line string) {
	f := strings.Fields(line)
	i, _ := strconv.Atoi(f[3])
	switch f[2] {
	case "P":
		models[i][f[4]] = f[5]
	case "D":
		delete(models[i], f[4])
	case "A":
		app[multiPrefixes[i]+"\x01"+f[4]] = f[5]
	}
}

func TestMultiStoreCrash(t *testing.T) {
	if dir := os.Getenv(multiCrashEnv); dir != "" {
		seed, _ := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
		multiCrashChild(dir, seed)
		return
	}
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	dir := t.TempDir()
	db := openMultiDB(t, dir)
	app, _ := multiAppKeys()
	setKeys(t, db, app)
	require.NoError(t, db.Close())
	models := make([]model, len(multiPrefixes))
	for i := range models {
		models[i] = model{}
	}
	rng := rand.New(rand.NewPCG(2026, 15))
	for round := 0; round < rounds; round++ {
		cmd, out := startCrashChild(t, "TestMultiStoreCrash", multiCrashEnv+"="+dir, fmt.Sprintf("%s=%d", crashSeedEnv, round+1))
		killAt := 100 + rng.IntN(1200)
		br := bufio.NewReader(out)
		var pending string
		acked := 0
		deadline := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		for {
			l, err := br.ReadString('\n')
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			l = strings.TrimSuffix(l, "\n")
			switch l[0] {
			case 'T':
				pending = l
			case 'K':
				applyMulti(models, app, pending)
				pending = ""
				if acked++; acked == killAt {
					time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
					_ = cmd.Process.Signal(syscall.SIGKILL)
				}
			case 'E':
				require.Failf(t, "the crash child reported an error", "round %d: %s", round, l)
			}
		}
		deadline.Stop()
		_ = cmd.Wait()
		require.GreaterOrEqual(t, acked, killAt, "round %d: the child stopped early", round)

		// Reopen: every acknowledged write is there; the pending one
		// entirely or not at all.
		db := openMultiDB(t, dir)
		got := make([][][2]string, len(multiPrefixes))
		for i, p := range multiPrefixes {
			s, err := Wrap(db, multiOptions(p))
			require.NoError(t, err, "round %d: Wrap %q", round, p)
			got[i], err = scan(s.NewIterator(IterOptions{}))
			require.NoError(t, err)
			require.NoError(t, s.Close())
		}
		gotApp := withoutOwnKeys(dump(t, db))
		require.NoError(t, db.Close())
		matches := func(models []model, app map[string]string) bool {
			for i := range models {
				if !assert.ObjectsAreEqual(models[i].rangeOf(nil, nil), got[i]) {
					return false
				}
			}
			return assert.ObjectsAreEqual(app, gotApp)
		}
		if !matches(models, app) && pending != "" {
			with := make([]model, len(models))
			for i := range models {
				with[i] = models[i].clone()
			}
			withApp := map[string]string{}
			for k, v := range app {
				withApp[k] = v
			}
			applyMulti(with, withApp, pending)
			if matches(with, withApp) {
				models, app = with, withApp
			}
		}
		for i := range models {
			require.Equal(t, models[i].rangeOf(nil, nil), got[i], "round %d store %q", round, multiPrefixes[i])
		}
		require.Equal(t, app, gotApp, "round %d: app keys", round)
	}
}
