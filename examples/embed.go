// Package examples embeds the sample books of this folder, so the server
// can register one on its first start without reading the checkout.
package examples

import _ "embed"

// SampleName is the document name of the sample book the server registers
// (the file name without its extension, as an upload would name it).
const SampleName = "zvezdochkin"

// Zvezdochkin is the Russian sample book «Звёздочкин и часы на башне».
//
//go:embed zvezdochkin.md
var Zvezdochkin []byte
