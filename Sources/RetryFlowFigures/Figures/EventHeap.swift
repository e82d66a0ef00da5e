/// The pending events of a discrete-event simulation, earliest first; ties go to the first pushed,
/// so a seeded simulation replays exactly. A binary heap over plain values (no clock, no threads).
package struct EventHeap<Payload> {
    private var heap: [(time: Double, order: Int, payload: Payload)] = []
    private var pushed = 0

    package init() {}

    /// Whether nothing is pending.
    package var isEmpty: Bool { heap.isEmpty }

    /// Adds `payload`, due at `time`.
    package mutating func push(_ payload: Payload, at time: Double) {
        let entry = (time: time, order: pushed, payload: payload)
        pushed += 1
        // Sift up with a hole: parents move down into it, the entry is written once.
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(entry, heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    /// Removes and returns the earliest event.
    package mutating func pop() -> (time: Double, payload: Payload)? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return (last.time, last.payload) }
        let first = heap[0]
        // Sift the last entry down from the root with a hole: the smaller child moves up into it.
        let count = heap.count
        var parent = 0
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, Self.before(heap[child + 1], heap[child]) { child += 1 }
            guard Self.before(heap[child], last) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = last
        return (first.time, first.payload)
    }

    private static func before(
        _ a: (time: Double, order: Int, payload: Payload), _ b: (time: Double, order: Int, payload: Payload)
    ) -> Bool {
        (a.time, a.order) < (b.time, b.order)
    }
}
