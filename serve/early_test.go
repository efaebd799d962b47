package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postInPieces posts a binary request's body over a connection of its
// own in two writes: the JSON header, then (after a pause, so that the
// server reads the header alone) the binary data.
func postInPieces(t *testing.T, f *fixture, body []byte, jsonLen int) (int, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(f.httpURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := fmt.Sprintf("POST /v2/models/small/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n%s: %d\r\nContent-Length: %d\r\n\r\n", binaryHeader, jsonLen, len(body))
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(body[:jsonLen]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := c.Write(body[jsonLen:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestEarlyDecode: a binary request whose header arrives before its
// binary data is decoded early and answered as the interpreter answers;
// one whose BYTES data turn out bad once in gets decodeInfer's 400.
func TestEarlyDecode(t *testing.T) {
	f := start(t, nil)
	sig := f.srv.Signature()
	feeds := f.prog.feeds(t, 5, 91)
	want := f.prog.want(t, feeds)
	body, n := inferBody(t, sig, feeds, allBinary(sig))
	code, out := postInPieces(t, f, body, n)
	var r inferResponse
	if code != 200 || json.Unmarshal(out, &r) != nil {
		t.Fatalf("%d %s", code, out)
	}
	checkInferOutput(t, "in two pieces", &r, want)
	// A BYTES element's length past its input's data.
	k := -1
	for i, in := range sig.Inputs {
		if in.DType.String() == "string" {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatal("the model has no BYTES input")
	}
	off := n
	for i := range k {
		raw := AppendRaw(nil, feeds[sig.Inputs[i].Name])
		off += len(raw)
	}
	bad := append([]byte{}, body...)
	bad[off] = 0xff
	_, werr := decodeInfer(bad, n, sig)
	if werr == nil {
		t.Fatal("decodeInfer reads the bad body")
	}
	code, out = postInPieces(t, f, bad, n)
	if code != 400 || !strings.Contains(string(out), jsonEscape(asError(werr).Msg)) {
		t.Fatalf("bad BYTES data: %d %s, want 400 with %q", code, out, asError(werr).Msg)
	}
}

// jsonEscape is s as it stands inside a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
