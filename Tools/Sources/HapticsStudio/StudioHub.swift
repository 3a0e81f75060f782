import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

/// The open WebSockets: each page gets every message (playhead, file changed) as one text frame.
actor StudioHub {
    private var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextID = 0

    /// A new subscriber's stream; a slow page drops old playhead messages, never blocks the rest.
    func subscribe() -> (AsyncStream<String>, Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        nextID += 1
        subscribers[nextID] = continuation
        return (stream, nextID)
    }

    func unsubscribe(_ id: Int) {
        subscribers.removeValue(forKey: id)?.finish()
    }

    func broadcast(_ text: String) {
        for continuation in subscribers.values { continuation.yield(text) }
    }

    /// Tells every page that the studio saved `path` (now at `version`) for tab `tab`, so other
    /// tabs reload it and the saving tab knows the message is its own.
    func announceSave(path: String, version: String, tab: String?) {
        broadcast(
            JSONValue.object([
                "type": .string("changed"), "path": .string(path), "version": .string(version),
                "by": .string("studio"), "tab": .string(tab ?? ""),
            ]).jsonText)
    }

    var count: Int { subscribers.count }
}
