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
        heap.append((time, pushed, payload))
        pushed += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest event.
    package mutating func pop() -> (time: Double, payload: Payload)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.before(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return (first.time, first.payload)
    }

    private static func before(
        _ a: (time: Double, order: Int, payload: Payload), _ b: (time: Double, order: Int, payload: Payload)
    ) -> Bool {
        (a.time, a.order) < (b.time, b.order)
    }
}
