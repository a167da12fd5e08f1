package main

import (
	"go/format"
	"os"
	"path/filepath"
	"testing"
)

// The committed network is what this command writes: a hand edit of the
// generated file, or a change here without go generate, fails.
func TestCommittedNetworkIsGenerated(t *testing.T) {
	want, err := format.Source(generate())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "signing", "sortnet.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("internal/signing/sortnet.go differs from what gensortnet writes: run go generate in internal/signing")
	}
}

// Batcher's network for 16 inputs has 63 compare-exchanges, each between
// two distinct inputs, the lower index first.
func TestNetworkShape(t *testing.T) {
	net := network(inputs)
	if len(net) != 63 {
		t.Fatalf("%d compare-exchanges, want 63", len(net))
	}
	for _, c := range net {
		if c[0] < 0 || c[0] >= c[1] || c[1] >= inputs {
			t.Fatalf("compare-exchange %v", c)
		}
	}
}

// Pruning keeps, for n keys, only the compare-exchanges between the first
// n positions: 48 of the 63 for the 13 values of a typical charge.
func TestPrunedShape(t *testing.T) {
	net := network(inputs)
	if got := len(pruned(net, 13)); got != 48 {
		t.Fatalf("%d compare-exchanges for 13 keys, want 48", got)
	}
	if got := len(pruned(net, inputs)); got != len(net) {
		t.Fatalf("%d compare-exchanges for %d keys, want all %d", got, inputs, len(net))
	}
}
