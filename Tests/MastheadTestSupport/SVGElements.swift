public import Foundation
#if canImport(FoundationXML)
public import FoundationXML
#endif

/// The elements of an XML document (SVG here), in document order, read with Foundation's parser:
/// a document that is not well-formed fails the read.
public final class SVGElements: NSObject, XMLParserDelegate {
    public struct Element {
        public var name: String
        public var attributes: [String: String]
        /// The text directly inside the element (a `<title>` child's text not included).
        public var text = ""
        /// The index of the enclosing element, nil for the root.
        public var parent: Int?
        /// The `class` attribute's words.
        public var classes: [String] { attributes["class"]?.split(separator: " ").map(String.init) ?? [] }
        /// A numeric attribute.
        public func number(_ name: String) -> Double? { attributes[name].flatMap(Double.init) }
    }

    public private(set) var elements: [Element] = []
    private var open: [Int] = []
    private var failure: (any Error)?

    /// The elements of `text`, or the parser's error.
    public static func read(_ text: String) throws -> [Element] {
        try read(Array(text.utf8))
    }

    /// The elements of a document's bytes, or the parser's error.
    public static func read(_ bytes: [UInt8]) throws -> [Element] {
        let reader = SVGElements()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        guard parser.parse() else { throw reader.failure ?? parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return reader.elements
    }

    public func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        elements.append(Element(name: elementName, attributes: attributes, parent: open.last))
        open.append(elements.count - 1)
    }

    public func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let current = open.last, elements[current].name != "title" { elements[current].text += string }
    }

    public func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { failure = parseError }
}

extension [SVGElements.Element] {
    /// The elements whose class list holds every one of `classes`.
    public func classed(_ classes: String...) -> [SVGElements.Element] {
        filter { element in classes.allSatisfy(element.classes.contains) }
    }

    /// The elements inside the element at `index` (at any depth).
    public func inside(_ index: Int) -> [SVGElements.Element] {
        indices.filter { candidate in
            var parent = self[candidate].parent
            while let current = parent {
                if current == index { return true }
                parent = self[current].parent
            }
            return false
        }.map { self[$0] }
    }
}
