package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisConfig configures a Redis store.
type RedisConfig struct {
	// URL is a redis:// or unix:// URL as go-redis's ParseURL accepts.
	URL string
	// Prefix starts every key the store writes; default "rlm".
	Prefix string
	// ChunkBytes is the size of the pieces a value is written and read in;
	// default 1 MiB. A 512 MB upload is 512 commands of 1 MiB, never one
	// command of 512 MB (Redis refuses bulk strings above 512 MB anyway).
	ChunkBytes int
	// ReplacedGrace is how long the old value of a replaced or deleted key
	// stays readable for readers that opened it before; default 5 minutes.
	ReplacedGrace time.Duration
	// CacheDir holds local copies of values for LocalPath (the REPL maps
	// documents from local disk). Default: a directory under os.TempDir().
	CacheDir string
}

// Redis is a Store in Redis, for several gateway replicas sharing their
// files, completions and traces.
//
// Layout, with P the prefix: P:ptr:<coll>:<key> holds the version id of the
// current value; P:data:<version> is a list of chunks holding the value;
// P:idx:<coll> is a sorted set of the collection's keys (for List); an index
// is P:ent:<coll>:<index>, a sorted set of entry keys (all of score 0, so
// ordered by bytes), beside P:entv:<coll>:<index>, a hash of their values;
// P:info:<coll> is a hash of each key's size and write time (for Walk); a
// lease is P:lease:<name>, holding its holder's token, with an expiry.
// Put writes
// the chunks under a fresh version (with an expiry, so an interrupted Put
// leaves nothing behind for long), then a Lua script switches the pointer,
// clears the expiry, indexes the key and records its size in one atomic
// step. Versions are never
// modified after that, which is what makes reads consistent and the local
// cache of LocalPath trivially correct.
type Redis struct {
	rdb    *redis.Client
	cfg    RedisConfig
	commit *redis.Script
	del    *redis.Script
	scan   *redis.Script
	walk   *redis.Script
	renew  *redis.Script
	drop   *redis.Script
	// token tells this store's leases from others' of the same name.
	token string

	lastPrune atomic.Int64 // unix nanos of the last cache sweep
	// cached are the versions whose copies this store handed out: the
	// cache directory may be shared with other stores (the default one is),
	// whose files PruneCache must leave alone.
	mu     sync.Mutex
	cached map[string]struct{}
}

// pendingTTL bounds how long the chunks of an unfinished Put survive.
const pendingTTL = time.Hour

// cleanupTimeout bounds removing the chunks of a failed Put.
const cleanupTimeout = time.Second

// OpenRedis connects to Redis and checks that it answers.
func OpenRedis(ctx context.Context, cfg RedisConfig) (*Redis, error) {
	opt, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("open redis store: %w", err)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "rlm"
	}
	if cfg.ChunkBytes <= 0 {
		cfg.ChunkBytes = 1 << 20
	}
	if cfg.ReplacedGrace <= 0 {
		cfg.ReplacedGrace = 5 * time.Minute
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = filepath.Join(os.TempDir(), "rlm-redis-cache")
	}
	if err := os.MkdirAll(cfg.CacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("open redis store: cache dir: %w", err)
	}
	// Without this, go-redis bounds socket reads by its own ReadTimeout
	// only, retried: a hung Redis held a Put with a 3s deadline for 10s.
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("open redis store %s: %w", opt.Addr, err)
	}
	grace := int(cfg.ReplacedGrace / time.Second)
	if grace < 1 {
		grace = 1
	}
	return &Redis{
		rdb:    rdb,
		cfg:    cfg,
		cached: map[string]struct{}{},
		token:  newVersion(),
		// KEYS: ptr, newdata, idx, info. ARGV: version, member, grace
		// seconds, data prefix, info ("<size> <unix ms>").
		commit: redis.NewScript(`
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PERSIST', KEYS[2])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[5])
if old then redis.call('EXPIRE', ARGV[4] .. old, tonumber(ARGV[3])) end
return 1`),
		// KEYS: idx, info. ARGV: min, max, count, ptr prefix, data prefix,
		// now in unix ms. It returns the number of keys in the range, the
		// last of them, and key-info pairs. A key without info (written by
		// a version that kept none) gets it here, once: the sum of its
		// chunks' lengths, and now as its write time.
		walk: redis.NewScript(`
local ks = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, k in ipairs(ks) do
  local v = redis.call('HGET', KEYS[2], k)
  if not v then
    local ver = redis.call('GET', ARGV[4] .. k)
    if ver then
      local data = ARGV[5] .. ver
      local size = 0
      for i = 0, redis.call('LLEN', data) - 1 do
        size = size + string.len(redis.call('LINDEX', data, i))
      end
      v = size .. ' ' .. ARGV[6]
      redis.call('HSET', KEYS[2], k, v)
    end
  end
  if v then out[#out+1] = k; out[#out+1] = v end
end
local last = ''
if #ks > 0 then last = ks[#ks] end
return {#ks, last, out}`),
		// KEYS: lease. ARGV: token, ttl ms.
		renew: redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
return 1`),
		// KEYS: lease. ARGV: token.
		drop: redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`),
		// KEYS: entry set, entry values. ARGV: min, max, count, "desc" or "".
		// One script, so that a page's keys and values agree. It returns
		// the number of keys in the range, the last of them, and the
		// key-value pairs of those whose values are there.
		scan: redis.NewScript(`
local ks
if ARGV[4] == 'desc' then
  ks = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[2], ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
else
  ks = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
end
local out = {}
for _, k in ipairs(ks) do
  local v = redis.call('HGET', KEYS[2], k)
  if v then out[#out+1] = k; out[#out+1] = v end
end
local last = ''
if #ks > 0 then last = ks[#ks] end
return {#ks, last, out}`),
		// KEYS: ptr, idx, info. ARGV: member, grace seconds, data prefix.
		del: redis.NewScript(`
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('EXPIRE', ARGV[3] .. old, tonumber(ARGV[2]))
return 1`),
	}, nil
}

// Close closes the connection pool.
func (r *Redis) Close() error { return r.rdb.Close() }

func (r *Redis) ptrKey(coll, key string) string { return r.cfg.Prefix + ":ptr:" + coll + ":" + key }
func (r *Redis) idxKey(coll string) string      { return r.cfg.Prefix + ":idx:" + coll }
func (r *Redis) infoKey(coll string) string     { return r.cfg.Prefix + ":info:" + coll }
func (r *Redis) dataPrefix() string             { return r.cfg.Prefix + ":data:" }

func newVersion() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Put implements Store.
func (r *Redis) Put(ctx context.Context, coll, key string, value io.Reader) (int64, error) {
	if err := CheckKey(coll, key); err != nil {
		return 0, err
	}
	ver := newVersion()
	data := r.dataPrefix() + ver
	buf := make([]byte, r.cfg.ChunkBytes)
	var n int64
	first := true
	fail := func(err error) (int64, error) {
		// Best effort, and briefly: the expiry removes the chunks anyway,
		// and a Redis that just failed the Put may be hung.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		r.rdb.Del(dctx, data)
		return n, fmt.Errorf("put %s/%s: %w", coll, key, err)
	}
	for {
		m, rerr := io.ReadFull(value, buf)
		if m > 0 || first {
			pipe := r.rdb.Pipeline()
			pipe.RPush(ctx, data, buf[:m])
			if first {
				pipe.Expire(ctx, data, pendingTTL)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return fail(err)
			}
			n += int64(m)
			first = false
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fail(rerr)
		}
	}
	grace := int(r.cfg.ReplacedGrace / time.Second)
	info := fmt.Sprintf("%d %d", n, time.Now().UnixMilli())
	if err := r.commit.Run(ctx, r.rdb, []string{r.ptrKey(coll, key), data, r.idxKey(coll), r.infoKey(coll)},
		ver, key, max(grace, 1), r.dataPrefix(), info).Err(); err != nil {
		return fail(err)
	}
	return n, nil
}

func (r *Redis) version(ctx context.Context, coll, key string) (string, error) {
	if err := CheckKey(coll, key); err != nil {
		return "", err
	}
	ver, err := r.rdb.Get(ctx, r.ptrKey(coll, key)).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	return ver, err
}

// Get implements Store. The reader fetches one chunk at a time.
func (r *Redis) Get(ctx context.Context, coll, key string) (io.ReadCloser, error) {
	ver, err := r.version(ctx, coll, key)
	if err != nil {
		return nil, fmt.Errorf("get %s/%s: %w", coll, key, err)
	}
	rc, err := r.open(ctx, ver)
	if err != nil {
		return nil, fmt.Errorf("get %s/%s: %w", coll, key, err)
	}
	return rc, nil
}

// open reads one version of a value.
func (r *Redis) open(ctx context.Context, ver string) (io.ReadCloser, error) {
	data := r.dataPrefix() + ver
	nchunks, err := r.rdb.LLen(ctx, data).Result()
	if err != nil {
		return nil, err
	}
	if nchunks == 0 {
		return nil, ErrNotFound
	}
	return &redisReader{ctx: ctx, rdb: r.rdb, key: data, n: nchunks}, nil
}

type redisReader struct {
	ctx  context.Context
	rdb  *redis.Client
	key  string
	n    int64 // chunks in the list
	next int64 // next chunk to fetch
	cur  []byte
}

func (rr *redisReader) Read(p []byte) (int, error) {
	for len(rr.cur) == 0 {
		if rr.next >= rr.n {
			return 0, io.EOF
		}
		vals, err := rr.rdb.LRange(rr.ctx, rr.key, rr.next, rr.next).Result()
		if err != nil {
			return 0, fmt.Errorf("read %s chunk %d: %w", rr.key, rr.next, err)
		}
		if len(vals) != 1 {
			return 0, fmt.Errorf("read %s chunk %d: value vanished (replaced or deleted too long ago)", rr.key, rr.next)
		}
		rr.cur = []byte(vals[0])
		rr.next++
	}
	n := copy(p, rr.cur)
	rr.cur = rr.cur[n:]
	return n, nil
}

func (rr *redisReader) Close() error { return nil }

// Delete implements Store.
func (r *Redis) Delete(ctx context.Context, coll, key string) error {
	if err := CheckKey(coll, key); err != nil {
		return err
	}
	// The version is read first only to drop this replica's cached copy:
	// a deleted document must not stay on local disk. Other replicas drop
	// theirs in PruneCache once the grace period is over.
	ver, _ := r.rdb.Get(ctx, r.ptrKey(coll, key)).Result()
	grace := int(r.cfg.ReplacedGrace / time.Second)
	ok, err := r.del.Run(ctx, r.rdb, []string{r.ptrKey(coll, key), r.idxKey(coll), r.infoKey(coll)},
		key, max(grace, 1), r.dataPrefix()).Int()
	if err != nil {
		return fmt.Errorf("delete %s/%s: %w", coll, key, err)
	}
	if ok == 0 {
		return fmt.Errorf("delete %s/%s: %w", coll, key, ErrNotFound)
	}
	if ver != "" {
		if err := r.dropCached(ver); err != nil {
			return fmt.Errorf("delete %s/%s: cached copy: %w", coll, key, err)
		}
	}
	return nil
}

// PruneCache removes the cached copies (see LocalPath) of values that were
// replaced or deleted, on any replica, and whose grace period is over, and
// returns how many it removed. LocalPath calls it at most once per grace
// period, so the cache holds current values only, plus recent ones.
func (r *Redis) PruneCache(ctx context.Context) (int, error) {
	r.lastPrune.Store(time.Now().UnixNano())
	r.mu.Lock()
	vers := make([]string, 0, len(r.cached))
	for v := range r.cached {
		vers = append(vers, v)
	}
	r.mu.Unlock()
	removed := 0
	for _, ver := range vers {
		// A version's data outlives every pointer to it by the grace
		// period, then expires: gone data means an unreachable version.
		n, err := r.rdb.Exists(ctx, r.dataPrefix()+ver).Result()
		if err != nil {
			return removed, fmt.Errorf("prune cache: %w", err)
		}
		if n > 0 {
			continue
		}
		if err := r.dropCached(ver); err != nil {
			return removed, fmt.Errorf("prune cache: %w", err)
		}
		removed++
	}
	return removed, nil
}

func (r *Redis) dropCached(ver string) error {
	r.mu.Lock()
	delete(r.cached, ver)
	r.mu.Unlock()
	if err := os.Remove(filepath.Join(r.cfg.CacheDir, ver+blobSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (r *Redis) noteCached(ver string) {
	r.mu.Lock()
	r.cached[ver] = struct{}{}
	r.mu.Unlock()
}

// List implements Store.
func (r *Redis) List(ctx context.Context, coll, prefix string) ([]string, error) {
	if err := CheckKey(coll, "x"); err != nil {
		return nil, err
	}
	keys, err := r.rdb.ZRangeByLex(ctx, r.idxKey(coll), &redis.ZRangeBy{
		Min: "[" + prefix,
		Max: "[" + prefix + "\xff",
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("list %s/%s: %w", coll, prefix, err)
	}
	if keys == nil {
		keys = []string{}
	}
	return keys, nil
}

// LocalPath returns a local file holding the current value of coll/key,
// downloading it into the cache directory the first time. Cached files are
// named by version, which never changes content, so a replaced value simply
// gets a new file. Copies of replaced and deleted values are removed by
// PruneCache, which LocalPath runs at most once per ReplacedGrace.
func (r *Redis) LocalPath(ctx context.Context, coll, key string) (string, error) {
	if last := r.lastPrune.Load(); time.Since(time.Unix(0, last)) >= r.cfg.ReplacedGrace {
		if _, err := r.PruneCache(ctx); err != nil {
			return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
		}
	}
	ver, err := r.version(ctx, coll, key)
	if err != nil {
		return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
	}
	p := filepath.Join(r.cfg.CacheDir, ver+blobSuffix)
	if _, err := os.Stat(p); err == nil {
		r.noteCached(ver)
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
	}
	// Read the version named above, not whatever is current by now: the
	// file's name promises that version's content.
	rc, err := r.open(ctx, ver)
	if err != nil {
		return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
	}
	defer rc.Close()
	f, err := os.CreateTemp(r.cfg.CacheDir, ".dl-*")
	if err != nil {
		return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
	}
	_, err = io.Copy(f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
	}
	r.noteCached(ver)
	return p, nil
}

func (r *Redis) entKeys(coll, index string) (set, values string) {
	base := r.cfg.Prefix + ":ent:" + coll + ":" + index
	return base, r.cfg.Prefix + ":entv:" + coll + ":" + index
}

// PutEntry implements Store.
func (r *Redis) PutEntry(ctx context.Context, coll, index, key string, value []byte) error {
	if err := CheckEntry(coll, index, key); err != nil {
		return err
	}
	if len(value) > MaxEntryBytes {
		return fmt.Errorf("put entry %s/%s/%s: %w", coll, index, key, ErrEntryTooLarge)
	}
	set, vals := r.entKeys(coll, index)
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, vals, key, value)
		p.ZAdd(ctx, set, redis.Z{Member: key})
		return nil
	})
	if err != nil {
		return fmt.Errorf("put entry %s/%s/%s: %w", coll, index, key, err)
	}
	return nil
}

// GetEntry implements Store.
func (r *Redis) GetEntry(ctx context.Context, coll, index, key string) ([]byte, error) {
	if err := CheckEntry(coll, index, key); err != nil {
		return nil, err
	}
	_, vals := r.entKeys(coll, index)
	b, err := r.rdb.HGet(ctx, vals, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("get entry %s/%s/%s: %w", coll, index, key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get entry %s/%s/%s: %w", coll, index, key, err)
	}
	return b, nil
}

// DeleteEntry implements Store.
func (r *Redis) DeleteEntry(ctx context.Context, coll, index, key string) error {
	if err := CheckEntry(coll, index, key); err != nil {
		return err
	}
	set, vals := r.entKeys(coll, index)
	var n *redis.IntCmd
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		n = p.HDel(ctx, vals, key)
		p.ZRem(ctx, set, key)
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete entry %s/%s/%s: %w", coll, index, key, err)
	}
	if n.Val() == 0 {
		return fmt.Errorf("delete entry %s/%s/%s: %w", coll, index, key, ErrNotFound)
	}
	return nil
}

// ScanEntries implements Store, a page of scanBatch entries per round trip.
func (r *Redis) ScanEntries(ctx context.Context, coll, index, after string, desc bool, fn func(Entry) bool) error {
	if err := CheckEntry(coll, index, "x"); err != nil {
		return err
	}
	set, vals := r.entKeys(coll, index)
	dir := ""
	if desc {
		dir = "desc"
	}
	for {
		// Bounds of ZRANGEBYLEX: "(" excludes the cursor, "-" and "+" are
		// the ends.
		lo, hi := "-", "+"
		if after != "" {
			if desc {
				hi = "(" + after
			} else {
				lo = "(" + after
			}
		}
		res, err := r.scan.Run(ctx, r.rdb, []string{set, vals}, lo, hi, scanBatch, dir).Slice()
		if err != nil {
			return fmt.Errorf("scan %s/%s: %w", coll, index, err)
		}
		if len(res) != 3 {
			return fmt.Errorf("scan %s/%s: unexpected reply %v", coll, index, res)
		}
		n, _ := res[0].(int64)
		last, _ := res[1].(string)
		kv, _ := res[2].([]any)
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			v, _ := kv[i+1].(string)
			if !fn(Entry{Key: k, Value: []byte(v)}) {
				return nil
			}
		}
		if n < scanBatch {
			return nil
		}
		// The page's last key, even when its value vanished (a delete
		// between the set and the hash): the next page starts past it.
		after = last
	}
}

// walkBatch is how many keys a Walk reads per round trip.
const walkBatch = 1000

// Walk implements Store, a page of walkBatch keys per round trip, in key
// order.
func (r *Redis) Walk(ctx context.Context, coll, prefix string, fn func(Info) bool) error {
	if err := CheckKey(coll, "x"); err != nil {
		return err
	}
	lo, hi := "["+prefix, "["+prefix+"\xff"
	for {
		res, err := r.walk.Run(ctx, r.rdb, []string{r.idxKey(coll), r.infoKey(coll)},
			lo, hi, walkBatch, r.cfg.Prefix+":ptr:"+coll+":", r.dataPrefix(), time.Now().UnixMilli()).Slice()
		if err != nil {
			return fmt.Errorf("walk %s/%s: %w", coll, prefix, err)
		}
		if len(res) != 3 {
			return fmt.Errorf("walk %s/%s: unexpected reply %v", coll, prefix, res)
		}
		n, _ := res[0].(int64)
		last, _ := res[1].(string)
		kv, _ := res[2].([]any)
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			v, _ := kv[i+1].(string)
			info, err := parseInfo(k, v)
			if err != nil {
				return fmt.Errorf("walk %s/%s: %w", coll, prefix, err)
			}
			if !fn(info) {
				return nil
			}
		}
		if n < walkBatch {
			return nil
		}
		lo = "(" + last
	}
}

func parseInfo(key, v string) (Info, error) {
	size, ms, ok := strings.Cut(v, " ")
	n, err1 := strconv.ParseInt(size, 10, 64)
	t, err2 := strconv.ParseInt(ms, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return Info{}, fmt.Errorf("info of %q: malformed %q", key, v)
	}
	return Info{Key: key, Size: n, Modified: time.UnixMilli(t)}, nil
}

func (r *Redis) leaseKey(name string) (string, error) {
	if err := CheckEntry("leases", "leases", name); err != nil {
		return "", err
	}
	return r.cfg.Prefix + ":lease:" + name, nil
}

// RenewLease implements Store. The lease is a key with an expiry, judged by
// Redis's clock alone, so replicas' clocks need not agree.
func (r *Redis) RenewLease(ctx context.Context, name string, ttl time.Duration) error {
	k, err := r.leaseKey(name)
	if err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("renew lease %s: ttl %v is not positive", name, ttl)
	}
	ok, err := r.renew.Run(ctx, r.rdb, []string{k}, r.token, max(ttl.Milliseconds(), 1)).Int()
	if err != nil {
		return fmt.Errorf("renew lease %s: %w", name, err)
	}
	if ok == 0 {
		return fmt.Errorf("renew lease %s: %w", name, ErrLeaseHeld)
	}
	return nil
}

// LeaseHeld implements Store.
func (r *Redis) LeaseHeld(ctx context.Context, name string) (bool, error) {
	k, err := r.leaseKey(name)
	if err != nil {
		return false, err
	}
	n, err := r.rdb.Exists(ctx, k).Result()
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	return n > 0, nil
}

// ReleaseLease implements Store. Another holder's lease is left alone: it
// ends by itself when its holder stops renewing it.
func (r *Redis) ReleaseLease(ctx context.Context, name string) error {
	k, err := r.leaseKey(name)
	if err != nil {
		return err
	}
	ok, err := r.drop.Run(ctx, r.rdb, []string{k}, r.token).Int()
	if err != nil {
		return fmt.Errorf("release lease %s: %w", name, err)
	}
	if ok == 0 {
		return fmt.Errorf("release lease %s: %w", name, ErrLeaseHeld)
	}
	return nil
}
