// pion/rtcp's Unmarshal on the same datagrams as tests/bench/rtcp_bench.c,
// in the same benchmark run: the peer for the ratio in `make bench`.
// Built offline against Debian's golang-github-pion-rtcp-dev:
//   RTCP_BENCH_DIR=DIR GO111MODULE=off GOPATH=/usr/share/gocode go test -bench . -benchmem
package pionbench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pion/rtcp"
)

func BenchmarkUnmarshal(b *testing.B) {
	dir := os.Getenv("RTCP_BENCH_DIR")
	for i := 1; i <= 4; i++ {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.rtcp", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rtcp.Unmarshal(data); err != nil {
			b.Fatalf("datagram %d: %v", i, err)
		}
		b.Run(fmt.Sprintf("datagram%d", i), func(b *testing.B) {
			b.ReportAllocs()
			for n := 0; n < b.N; n++ {
				if _, err := rtcp.Unmarshal(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
