package maps_test

import (
	std "maps"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/repl/internal/gosrc/maps"
)

func TestAgainstStdlib(t *testing.T) {
	m := map[string]int{"a": 1, "b": 2, "c": 3}
	c := maps.Clone(m)
	if !std.Equal(c, m) || !maps.Equal(c, m) || maps.Clone(map[int]int(nil)) != nil {
		t.Fatal("Clone/Equal")
	}
	c["d"] = 4
	if maps.Equal(c, m) || !maps.EqualFunc(m, map[string]int{"a": 2, "b": 4, "c": 6}, func(x, y int) bool { return 2*x == y }) {
		t.Fatal("Equal/EqualFunc")
	}
	maps.DeleteFunc(c, func(k string, v int) bool { return v%2 == 0 })
	if !std.Equal(c, map[string]int{"a": 1, "c": 3}) {
		t.Fatalf("DeleteFunc: %v", c)
	}
	if k := slices.Sorted(maps.Keys(m)); !slices.Equal(k, slices.Sorted(std.Keys(m))) {
		t.Fatalf("Keys: %v", k)
	}
	if v := slices.Sorted(maps.Values(m)); !slices.Equal(v, []int{1, 2, 3}) {
		t.Fatalf("Values: %v", v)
	}
	if got := maps.Collect(maps.All(m)); !std.Equal(got, m) {
		t.Fatalf("Collect(All): %v", got)
	}
	dst := map[string]int{"z": 0}
	maps.Copy(dst, m)
	maps.Insert(dst, std.All(map[string]int{"y": 9}))
	if len(dst) != 5 || dst["y"] != 9 || dst["b"] != 2 {
		t.Fatalf("Copy/Insert: %v", dst)
	}
}
