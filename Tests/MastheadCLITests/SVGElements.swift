import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The elements of an XML document (SVG here), in document order, read with Foundation's parser:
/// a document that is not well-formed fails the read.
final class SVGElements: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        /// The `class` attribute's words.
        var classes: [String] { attributes["class"]?.split(separator: " ").map(String.init) ?? [] }
    }

    private(set) var elements: [Element] = []
    private var failure: (any Error)?

    static func read(_ text: String) throws -> [Element] {
        let reader = SVGElements()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = reader
        guard parser.parse() else { throw reader.failure ?? parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return reader.elements
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        elements.append(Element(name: elementName, attributes: attributes))
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { failure = parseError }
}

extension [SVGElements.Element] {
    /// The elements whose class list holds every one of `classes`.
    func classed(_ classes: String...) -> [SVGElements.Element] {
        filter { element in classes.allSatisfy(element.classes.contains) }
    }
}
