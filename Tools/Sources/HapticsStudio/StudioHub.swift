import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

/// The open WebSockets: each page gets every message (playhead, file changed) as one text frame.
actor StudioHub {
    /// The most sockets kept open: a quarter of the connection bound, at least 8. An open socket
    /// holds a connection, and 256 of them held by someone with the token kept every page's
    /// requests out (issue 28's attack round); now at least three quarters of the bound is always
    /// left to requests. A socket past it ends the oldest one's stream, whose sender then closes
    /// it (a page opens its socket again a second later).
    static let maxSockets = max(8, StudioConnections.limit / 4)

    private var subscribers: OrderedDictionary<Int, AsyncStream<String>.Continuation> = [:]
    private var nextID = 0

    /// A new subscriber's stream; a slow page drops old playhead messages, never blocks the rest.
    /// At ``maxSockets``, the oldest subscriber's stream ends.
    func subscribe() -> (AsyncStream<String>, Int) {
        if subscribers.count >= Self.maxSockets { subscribers.removeFirst().value.finish() }
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
