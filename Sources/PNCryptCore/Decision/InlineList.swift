// A list that holds its first two elements inline, for the decrypt path's usual one or two readings.

/// A list whose first two elements are held inline (the usual one key's one or two readings): building it
/// allocates nothing until a third element.
struct InlineList<Element>: RandomAccessCollection {
    private var first: Element?
    private var second: Element?
    private var rest: [Element] = []
    private(set) var endIndex = 0

    var startIndex: Int { 0 }

    subscript(position: Int) -> Element {
        switch position {
        case 0: first!
        case 1: second!
        default: rest[position - 2]
        }
    }

    mutating func append(_ element: Element) {
        switch endIndex {
        case 0: first = element
        case 1: second = element
        default: appendRest(element)
        }
        endIndex += 1
    }

    @inline(never)
    private mutating func appendRest(_ element: Element) { rest.append(element) }
}
