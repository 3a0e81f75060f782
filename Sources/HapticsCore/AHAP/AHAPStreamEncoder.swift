package import OrderedCollections

/// AHAP written an element at a time, for patterns too long to hold whole: the bytes are exactly
/// those `AHAP.encode` writes for a pattern with the same version, metadata and elements in the
/// order appended. Call ``append(_:)`` for each element, take the bytes written so far with
/// ``drain(_:)`` whenever convenient, and end with ``finish()``.
///
/// ```swift
/// var encoder = AHAPStreamEncoder()
/// for element in elements { encoder.append(element); try encoder.drain { try file.write($0) } }
/// encoder.finish(); try encoder.drain { try file.write($0) }
/// ```
package struct AHAPStreamEncoder {
    private var writer = AHAPWriter()
    private var count = 0
    private var finished = false

    /// Starts the document: its `Version` and `Metadata` as `HapticPattern` would hold them.
    package init(version: Double? = 1, metadata: OrderedDictionary<String, JSONValue> = [:]) {
        // The top-level object as `AHAPWriter.object` writes it, up to the `Pattern` array.
        writer.raw("{")
        writer.indentLevel = 1
        if let version {
            writer.newline()
            writer.string("Version")
            writer.raw(": ")
            writer.number(version)
            writer.separator()
        }
        if !metadata.isEmpty {
            writer.newline()
            writer.string("Metadata")
            writer.raw(": ")
            writer.json(.object(metadata))
            writer.separator()
        }
        writer.newline()
        writer.string("Pattern")
        writer.raw(": ")
    }

    /// Elements appended so far.
    package var elementCount: Int { count }

    /// Writes the next element of the `Pattern` array.
    package mutating func append(_ element: PatternElement) {
        precondition(!finished, "an AHAPStreamEncoder takes no elements after finish()")
        if count == 0 {
            writer.raw("[")
            writer.indentLevel = 2
        } else {
            writer.separator()
        }
        count += 1
        writer.newline()
        writer.element(element)
    }

    /// Closes the array and the document.
    package mutating func finish() {
        guard !finished else { return }
        finished = true
        if count == 0 {
            writer.raw("[]")
        } else {
            writer.indentLevel = 1
            writer.newline()
            writer.raw("]")
        }
        writer.indentLevel = 0
        writer.newline()
        writer.raw("}\n")
    }

    /// Bytes written since the last drain.
    package var pendingBytes: Int { writer.out.count }

    /// Hands the bytes written since the last drain to `body`, then forgets them.
    package mutating func drain<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try writer.drain(body)
    }
}
