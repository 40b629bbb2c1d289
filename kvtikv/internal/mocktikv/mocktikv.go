// Package mocktikv makes the TiKV cluster kvtikv's tests run on:
// client-go's in-process mock, with no server.
package mocktikv

import (
	"github.com/pingcap/log"
	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"
	"go.uber.org/zap"
)

// New returns a KVStore on client-go's in-process mock, in dir ("" in
// memory; a directory keeps it on disk, to reopen in another process),
// with its regions split at splitKeys.
func New(dir string, splitKeys ...[]byte) (*tikv.KVStore, error) {
	rpc, cluster, pdc, err := testutils.NewMockTiKV(dir, nil)
	if err != nil {
		return nil, err
	}
	if len(splitKeys) > 0 {
		testutils.BootstrapWithMultiRegions(cluster, splitKeys...)
	} else {
		testutils.BootstrapWithSingleStore(cluster)
	}
	return tikv.NewTestTiKVStore(rpc, pdc, nil, nil, 0)
}

// Quiet silences client-go's logs (pingcap/log) below fatal.
func Quiet() {
	log.ReplaceGlobals(zap.NewNop(), &log.ZapProperties{Level: zap.NewAtomicLevelAt(zap.FatalLevel)})
}
