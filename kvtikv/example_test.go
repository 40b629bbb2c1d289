package kvtikv_test

import (
	"fmt"
	"time"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kvtikv"
	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"
)

// A writer and a read-only Store on one TiKV cluster (here client-go's
// in-process mock; on a cluster, kvtikv.Dial(ctx, pdAddrs, opts)).
func ExampleOpen() {
	rpc, cluster, pdc, _ := testutils.NewMockTiKV("", nil)
	testutils.BootstrapWithSingleStore(cluster)
	store, _ := tikv.NewTestTiKVStore(rpc, pdc, nil, nil, 0)
	defer store.Close()

	opts := kv.DefaultOptions("")
	opts.Prefix = []byte("metrics/")
	opts.Lease = 5 * time.Second
	w, err := kvtikv.Open(store, opts)
	if err != nil {
		panic(err)
	}
	_ = w.Put([]byte("cpu|host1|0001"), []byte("0.25"))
	_ = w.Put([]byte("cpu|host1|0002"), []byte("0.50"))
	_, err = kvtikv.Open(store, opts)
	fmt.Println("second writer:", err != nil)
	_ = w.Flush()

	ro := opts
	ro.ReadOnly = true
	r, _ := kvtikv.Open(store, ro)
	v, _ := r.Get([]byte("cpu|host1|0002"))
	fmt.Println("reader:", string(v))
	fmt.Println("reader writes:", r.Put([]byte("x"), []byte("y")) != nil)
	_ = r.Close()
	_ = w.Close()
	// Output:
	// second writer: true
	// reader: 0.50
	// reader writes: true
}
