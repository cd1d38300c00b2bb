;; The IVF index's scoring kernel (issue 24): dot products of float32 vectors with WebAssembly SIMD.
;; The memory is the index's own (imported, so the index chooses its size and maximum). Vectors are
;; `dims` floats, `dims` a positive multiple of 16 (the index pads), each row contiguous.
;; The lists' vectors are held as 8-bit rows (`dots8`): `dims` int8 values, their f32 scale, 12 zero bytes,
;; scored against the query as int16 with integer dot products (a quarter of the bytes to read of float rows).
;; Assembled by scripts/build-wasm.mjs into dots-wasm.ts; dots-kernel.test.ts checks that they agree.
(module
  (import "env" "memory" (memory 1 65536))

  ;; out[i] = dot(q, base + i*dims*4) for i < n.
  (func $dots (export "dots") (param $q i32) (param $base i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $i i32) (local $j i32) (local $v i32) (local $stride i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $stride (i32.shl (local.get $dims) (i32.const 2)))
    (local.set $v (local.get $base))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0))
        (local.set $a2 (v128.const f32x4 0 0 0 0))
        (local.set $a3 (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $cols
          (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (i32.add (local.get $q) (local.get $j))) (v128.load (i32.add (local.get $v) (local.get $j))))))
          (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (i32.add (local.get $q) (local.get $j))) (v128.load offset=16 (i32.add (local.get $v) (local.get $j))))))
          (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (i32.add (local.get $q) (local.get $j))) (v128.load offset=32 (i32.add (local.get $v) (local.get $j))))))
          (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (i32.add (local.get $q) (local.get $j))) (v128.load offset=48 (i32.add (local.get $v) (local.get $j))))))
          (local.set $j (i32.add (local.get $j) (i32.const 64)))
          (br_if $cols (i32.lt_u (local.get $j) (local.get $stride))))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
                   (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $v (i32.add (local.get $v) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; Scores the runs a table lists, in one call: `entries` pairs of i32 (byte offset of the first vector,
  ;; number of vectors) at `table`; their scores are written one after another from `out`.
  ;; Answers the byte address after the last score written.
  (func (export "dotsTable") (param $q i32) (param $table i32) (param $entries i32) (param $dims i32) (param $out i32) (result i32)
    (local $e i32) (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $e) (local.get $entries)))
        (local.set $n (i32.load offset=4 (local.get $table)))
        (call $dots (local.get $q) (i32.load (local.get $table)) (local.get $n) (local.get $dims) (local.get $out))
        (local.set $out (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
        (local.set $table (i32.add (local.get $table) (i32.const 8)))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (br $next)))
    (local.get $out))
;; out[i] = dot(q, row i) * scale of row i * qscale for i < n: the query `dims` int16 at q, the rows
  ;; `dims + 16` bytes apart from base, each `dims` int8 then its f32 scale. `dims` a positive multiple of 16.
  ;; The integer sums stay below 2^31 when 127 * 32767 * dims does, or the query's values are kept smaller.
  (func $dots8 (export "dots8") (param $q i32) (param $base i32) (param $n i32) (param $dims i32) (param $out i32) (param $qscale f32)
    (local $i i32) (local $j i32) (local $v i32) (local $stride i32) (local $b v128)
    (local $a0 v128) (local $a1 v128)
    (local.set $stride (i32.add (local.get $dims) (i32.const 16)))
    (local.set $v (local.get $base))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $cols
          (local.set $b (v128.load (i32.add (local.get $v) (local.get $j))))
          (local.set $a0 (i32x4.add (local.get $a0)
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b))
                               (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
          (local.set $a1 (i32x4.add (local.get $a1)
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b))
                               (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $cols (i32.lt_u (local.get $j) (local.get $dims))))
        (local.set $a0 (i32x4.add (local.get $a0) (local.get $a1)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.mul
            (f32.mul
              (f32.convert_i32_s
                (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
                         (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
              (f32.load (i32.add (local.get $v) (local.get $dims))))
            (local.get $qscale)))
        (local.set $v (i32.add (local.get $v) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; `dotsTable` for 8-bit rows: `entries` pairs of i32 (byte offset of the first row, number of rows) at `table`.
  (func (export "dots8Table") (param $q i32) (param $table i32) (param $entries i32) (param $dims i32) (param $out i32) (param $qscale f32) (result i32)
    (local $e i32) (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $e) (local.get $entries)))
        (local.set $n (i32.load offset=4 (local.get $table)))
        (call $dots8 (local.get $q) (i32.load (local.get $table)) (local.get $n) (local.get $dims) (local.get $out) (local.get $qscale))
        (local.set $out (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
        (local.set $table (i32.add (local.get $table) (i32.const 8)))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (br $next)))
    (local.get $out))
)
