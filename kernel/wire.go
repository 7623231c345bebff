package kernel

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"
)

// ProtocolVersion is the version of the Jupyter messaging protocol this
// kernel speaks; it is sent in every header and in kernel_info_reply.
const ProtocolVersion = "5.3"

// delimiter separates the ZeroMQ routing identities from the message proper.
const delimiter = "<IDS|MSG>"

// ErrProtocol is wrapped by every error describing a message that does not
// follow the wire protocol (missing delimiter, too few frames, bad signature,
// undecodable JSON).
var ErrProtocol = errors.New("jupyter protocol error")

// ErrBadSignature is wrapped by the error for a message whose HMAC signature
// does not match its frames.
var ErrBadSignature = errors.New("bad message signature")

// Header is the header of a Jupyter message.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one Jupyter message as it travels on a socket. Received
// messages keep their serialized parent header, metadata and content, so a
// reply can echo the request's header byte for byte as its parent.
type Message struct {
	// Identities are the ZeroMQ routing frames before the delimiter: on a
	// ROUTER socket the peer's identity, on IOPub the topic.
	Identities [][]byte
	Header     Header
	// RawHeader is the header as it was serialized (received messages).
	RawHeader json.RawMessage
	// Parent, Metadata and Content are JSON objects.
	Parent   json.RawMessage
	Metadata json.RawMessage
	Content  json.RawMessage
	// Buffers are the raw data frames after the content.
	Buffers [][]byte
}

var hashes = map[string]func() hash.Hash{
	"hmac-sha256": sha256.New,
	"hmac-sha512": sha512.New,
	"hmac-sha1":   sha1.New,
}

// signer computes and checks message signatures: the hex HMAC of the
// serialized header, parent header, metadata and content, in that order.
// A signer with an empty key signs with "" and accepts every signature.
type signer struct {
	key  []byte
	hash func() hash.Hash

	// seen holds recent signatures to refuse replayed messages, as
	// jupyter_client's Session does; mu guards it.
	mu       sync.Mutex
	seen     map[string]struct{}
	seenFIFO []string
}

// maxSeen bounds the replay-detection memory.
const maxSeen = 1 << 14

func newSigner(scheme, key string) (*signer, error) {
	h, ok := hashes[scheme]
	if !ok {
		return nil, fmt.Errorf("kernel: signature_scheme %q is not supported", scheme)
	}
	return &signer{key: []byte(key), hash: h, seen: map[string]struct{}{}}, nil
}

// sign returns the hex signature of the four frames, or nil with no key.
func (s *signer) sign(frames ...[]byte) []byte {
	if len(s.key) == 0 {
		return nil
	}
	mac := hmac.New(s.hash, s.key)
	for _, f := range frames {
		mac.Write(f)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// verify checks sig against the four frames in constant time and refuses a
// signature it has already seen. It is safe for concurrent use.
//
// The signature must be the lower-case hex digest: the messaging
// specification defines it as "the HMAC hex digest" of the frames, and the
// reference implementation (jupyter_client's Session.sign, hexdigest())
// writes lower case and compares received signatures byte for byte with
// compare_digest, so an upper-case or mixed-case signature is refused as a
// bad signature there and here. Accepting other spellings would also give
// one message several valid signatures.
func (s *signer) verify(sig []byte, frames ...[]byte) error {
	if len(s.key) == 0 {
		return nil
	}
	want := s.sign(frames...)
	if !hmac.Equal(sig, want) {
		return fmt.Errorf("%w: %w", ErrProtocol, ErrBadSignature)
	}
	return s.remember(want)
}

// remember records a verified signature, refusing one already seen.
func (s *signer) remember(want []byte) error {
	k := string(want)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[k]; dup {
		return fmt.Errorf("%w: duplicate signature (replayed message)", ErrProtocol)
	}
	s.seen[k] = struct{}{}
	s.seenFIFO = append(s.seenFIFO, k)
	if len(s.seenFIFO) > maxSeen {
		delete(s.seen, s.seenFIFO[0])
		s.seenFIFO = s.seenFIFO[1:]
	}
	return nil
}

// decode parses the frames of one multipart message and verifies its
// signature. Errors wrap ErrProtocol.
//
// When the signature is valid but the message is malformed (a part that is
// not a JSON object, a header field of the wrong type), decode returns the
// error together with a partial message, if the header names a msg_type:
// its Identities, RawHeader and Header (the fields that could be read),
// so that the caller can answer a request with an error reply. A message
// that cannot be authenticated (no delimiter, fewer than five frames after
// it, a bad or replayed signature) returns a nil message.
func (s *signer) decode(frames [][]byte) (*Message, error) {
	d, err := s.authenticate(frames)
	if err != nil {
		return nil, err
	}
	rest := frames[d+1:]
	if len(s.key) > 0 {
		if err := s.remember(rest[0]); err != nil {
			return nil, err
		}
	}
	m := &Message{Identities: frames[:d], RawHeader: rest[1]}
	partial := func(err error) (*Message, error) {
		var h map[string]any
		if json.Unmarshal(rest[1], &h) != nil {
			return nil, err
		}
		str := func(k string) string { v, _ := h[k].(string); return v }
		m.Header = Header{MsgID: str("msg_id"), Session: str("session"), Username: str("username"),
			Date: str("date"), MsgType: str("msg_type"), Version: str("version")}
		if m.Header.MsgType == "" {
			return nil, err
		}
		m.Parent, m.Metadata, m.Content = json.RawMessage("{}"), json.RawMessage("{}"), json.RawMessage("{}")
		return m, err
	}
	names := [4]string{"header", "parent_header", "metadata", "content"}
	for i, f := range rest[1:5] {
		if !isJSONObject(f) {
			return partial(fmt.Errorf("%w: %s is not a JSON object", ErrProtocol, names[i]))
		}
	}
	if err := json.Unmarshal(rest[1], &m.Header); err != nil {
		return partial(fmt.Errorf("%w: header: %v", ErrProtocol, err))
	}
	if m.Header.MsgType == "" {
		return nil, fmt.Errorf("%w: header has no msg_type", ErrProtocol)
	}
	m.Parent = rest[2]
	m.Metadata = rest[3]
	m.Content = rest[4]
	m.Buffers = rest[5:]
	return m, nil
}

// authenticate finds the delimiter of a multipart message (its index is
// returned) and checks the signature of the four frames after it, without
// recording it (decode does, to refuse replays). Errors wrap ErrProtocol.
func (s *signer) authenticate(frames [][]byte) (int, error) {
	d := -1
	for i, f := range frames {
		if string(f) == delimiter {
			d = i
			break
		}
	}
	if d < 0 {
		return 0, fmt.Errorf("%w: no %s delimiter among %d frames", ErrProtocol, delimiter, len(frames))
	}
	rest := frames[d+1:]
	if len(rest) < 5 {
		return 0, fmt.Errorf("%w: %d frames after the delimiter, want at least 5 (signature, header, parent header, metadata, content)", ErrProtocol, len(rest))
	}
	if len(s.key) > 0 && !hmac.Equal(rest[0], s.sign(rest[1:5]...)) {
		return 0, fmt.Errorf("%w: %w", ErrProtocol, ErrBadSignature)
	}
	return d, nil
}

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) >= 2 && b[0] == '{' && json.Valid(b)
}

// encode serializes a message to frames: identities, delimiter, signature,
// header, parent header, metadata, content, buffers. content and metadata
// are marshaled with encoding/json; a nil parent is sent as {}.
func (s *signer) encode(idents [][]byte, h Header, parent json.RawMessage, metadata, content any) ([][]byte, error) {
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if len(parent) == 0 {
		parent = json.RawMessage("{}")
	}
	mb := []byte("{}")
	if metadata != nil {
		if mb, err = json.Marshal(metadata); err != nil {
			return nil, fmt.Errorf("kernel: encoding %s metadata: %w", h.MsgType, err)
		}
	}
	cb := []byte("{}")
	if content != nil {
		if cb, err = json.Marshal(content); err != nil {
			return nil, fmt.Errorf("kernel: encoding %s content: %w", h.MsgType, err)
		}
	}
	frames := make([][]byte, 0, len(idents)+6)
	frames = append(frames, idents...)
	frames = append(frames, []byte(delimiter), s.sign(hb, parent, mb, cb), hb, parent, mb, cb)
	return frames, nil
}

// newID returns a random version-4 UUID string.
func newID() string {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		// crypto/rand does not fail on supported platforms; fall back to time.
		t := time.Now().UnixNano()
		for i := range u {
			u[i] = byte(t >> (8 * (i % 8)))
		}
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// isoNow is the current time in the ISO 8601 form Jupyter uses.
func isoNow() string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}
