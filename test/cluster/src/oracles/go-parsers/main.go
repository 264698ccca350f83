// go-parsers answers, one JSON line per request line, what the Go libraries behind opm, OLM and the container
// tools make of an input, so that tests can compare our TypeScript parsers with them on generated inputs.
//
// Request:  {"mode": "...", "input": "...", "versions": ["..."]}
// Answer:   {"ok": true, "value": ...} or {"ok": false, "error": "..."}
//
// Modes: semver-version (blang/semver/v4 Parse, value: String()), semver-range (ParseRange; value: for each
// of versions, whether the range includes it), reference (ParseNormalizedNamed of go.podman.io/image's
// docker/reference, which operator-framework/api validates bundles with; value: String()), yaml
// (sigs.k8s.io/yaml YAMLToJSON; value: the JSON text), yaml-strings (sigs.k8s.io/yaml Unmarshal into a
// map[string]string, as bundle annotations are read; value: the map), json-to-yaml (sigs.k8s.io/yaml JSONToYAML,
// as the Go tools write YAML; value: the YAML text), request-uri (net/url ParseRequestURI; value: scheme and
// host), json-encode (encoding/json Unmarshal into interface{}, then json.Marshal, an Encoder with
// SetEscapeHTML(false) as opm writes catalogs, and the same indented by four spaces; value: the three texts,
// without the Encoder's trailing newline), fmt-json (Unmarshal into interface{}; value: its %v and %t).
package main

import (
	"bufio"
	"bytes"
	// The digest algorithms a reference may name are those linked in, as in the tools.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/blang/semver/v4"
	"go.podman.io/image/v5/docker/reference"
	"sigs.k8s.io/yaml"
)

type request struct {
	Mode     string   `json:"mode"`
	Input    string   `json:"input"`
	Versions []string `json:"versions"`
}

type answer struct {
	OK    bool   `json:"ok"`
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

func answerFor(r request) answer {
	switch r.Mode {
	case "semver-version":
		v, err := semver.Parse(r.Input)
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: v.String()}
	case "semver-range":
		rng, err := semver.ParseRange(r.Input)
		if err != nil {
			return answer{Error: err.Error()}
		}
		included := make([]bool, len(r.Versions))
		for i, text := range r.Versions {
			included[i] = rng(semver.MustParse(text))
		}
		return answer{OK: true, Value: included}
	case "reference":
		named, err := reference.ParseNormalizedNamed(r.Input)
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: named.String()}
	case "yaml":
		out, err := yaml.YAMLToJSON([]byte(r.Input))
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: string(out)}
	case "yaml-strings":
		var out map[string]string
		if err := yaml.Unmarshal([]byte(r.Input), &out); err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: out}
	case "json-to-yaml":
		out, err := yaml.JSONToYAML([]byte(r.Input))
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: string(out)}
	case "request-uri":
		u, err := url.ParseRequestURI(r.Input)
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: map[string]string{"scheme": u.Scheme, "host": u.Host}}
	case "json-encode":
		var v any
		if err := json.Unmarshal([]byte(r.Input), &v); err != nil {
			return answer{Error: err.Error()}
		}
		marshalled, err := json.Marshal(v)
		if err != nil {
			return answer{Error: err.Error()}
		}
		encode := func(indent string) string {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", indent)
			_ = enc.Encode(v)
			return strings.TrimSuffix(buf.String(), "\n")
		}
		return answer{OK: true, Value: map[string]string{
			"marshal":  string(marshalled),
			"encoder":  encode(""),
			"indented": encode("    "),
		}}
	case "fmt-json":
		var v any
		if err := json.Unmarshal([]byte(r.Input), &v); err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Value: map[string]string{"v": fmt.Sprintf("%v", v), "t": fmt.Sprintf("%t", v)}}
	}
	return answer{Error: fmt.Sprintf("unknown mode %q", r.Mode)}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	encoder := json.NewEncoder(out)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintf(os.Stderr, "go-parsers: bad request: %v\n", err)
			os.Exit(2)
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					_ = encoder.Encode(answer{Error: fmt.Sprintf("panic: %v", p)})
				}
			}()
			_ = encoder.Encode(answerFor(r))
		}()
	}
}
