// Command go-duration-oracle records what Go's time.ParseDuration returns for each input: the
// hand-written cases read from the JSON array given as the first argument, followed by a
// deterministic set of generated ones. The recordings go to stdout as a JSON array of
// {"input", "nanos", "seconds"} or {"input", "error"} objects.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

type recording struct {
	Input string `json:"input"`
	Nanos *int64 `json:"nanos,omitempty"`
	// Seconds is Duration.Seconds() of the parsed value (a float64 that rounds: 16777216.999999999s
	// gives 1.6777217e+07), in strconv's shortest 'g' form so that it reads back exactly.
	Seconds *string `json:"seconds,omitempty"`
	Error   *string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go-duration-oracle CASES.json > recordings.json")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var cases []string
	if err := json.Unmarshal(raw, &cases); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cases = append(cases, generated()...)
	seen := map[string]bool{}
	var out []recording
	for _, input := range cases {
		if seen[input] {
			continue
		}
		seen[input] = true
		d, err := time.ParseDuration(input)
		r := recording{Input: input}
		if err != nil {
			message := err.Error()
			r.Error = &message
		} else {
			nanos := int64(d)
			seconds := strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
			r.Nanos = &nanos
			r.Seconds = &seconds
		}
		out = append(out, r)
	}
	// One recording a line, so a change reads as a small diff.
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range out {
		var line strings.Builder
		encoder := json.NewEncoder(&line)
		encoder.SetEscapeHTML(false)
		if err := encoder.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		b.WriteString(strings.TrimSuffix(line.String(), "\n"))
		if i+1 < len(out) {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	os.Stdout.WriteString(b.String())
}

var units = []string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"}

// generated returns the same inputs on every run (fixed PCG seed).
func generated() []string {
	rng := rand.New(rand.NewPCG(20261124, 1))
	digits := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	unit := func() string { return units[rng.IntN(len(units))] }
	var out []string
	// Fractions of every length on every unit: the float64 rounding of the fractional part.
	for i := 0; i < 400; i++ {
		whole := digits(rng.IntN(4))
		if whole == "" && rng.IntN(2) == 0 {
			whole = "0"
		}
		out = append(out, whole+"."+digits(1+rng.IntN(25))+unit())
	}
	// Fractions made of nines and near-halves, where float64 rounding shows most.
	for n := 1; n <= 22; n++ {
		for _, u := range []string{"h", "m", "s", "ms", "us"} {
			out = append(out, "0."+strings.Repeat("9", n)+u)
			out = append(out, "0.5"+strings.Repeat("0", n-1)+"1"+u)
			out = append(out, "1."+strings.Repeat("3", n)+u)
		}
	}
	// Sums of several terms, signed, sometimes near the int64 limit.
	for i := 0; i < 200; i++ {
		var b strings.Builder
		switch rng.IntN(3) {
		case 0:
			b.WriteByte('-')
		case 1:
			b.WriteByte('+')
		}
		terms := 1 + rng.IntN(5)
		for t := 0; t < terms; t++ {
			b.WriteString(digits(1 + rng.IntN(20)))
			if rng.IntN(3) == 0 {
				b.WriteString("." + digits(rng.IntN(12)))
			}
			b.WriteString(unit())
		}
		out = append(out, b.String())
	}
	// Values around the int64 limit in each unit.
	limits := map[string]uint64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
	for _, u := range []string{"ns", "us", "ms", "s", "m", "h"} {
		top := uint64(1<<63) / limits[u]
		for _, delta := range []int64{-1, 0, 1, 2} {
			v := fmt.Sprint(int64(top) + delta)
			out = append(out, v+u, "-"+v+u, v+".9"+u, "-"+v+".999999999999"+u)
		}
	}
	// Random strings over the alphabet of the grammar and a few strangers.
	alphabet := []string{"0", "1", "5", "9", ".", "+", "-", "n", "s", "u", "m", "h", "µ", "μ", "e", " ", "d", "ms", "ns"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for n := rng.IntN(8); n >= 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		out = append(out, b.String())
	}
	return out
}
