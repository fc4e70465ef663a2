"""Stand-ins for the page custom-layer/index.js draws on (not a port): `document` with the
`cat` image and the two output elements, canvases whose 2d context keeps the ImageData put on
it, and `ImageData`, whose `data` clamps and rounds what is stored as a Uint8ClampedArray
does. The cat is a small seeded picture (tests/reference/gen_antirectifier.js makes the same
one) instead of cat.jpg."""

from types import SimpleNamespace

import numpy as np

from ..boston_housing.data import mulberry32

CAT_WIDTH, CAT_HEIGHT = 6, 5


class Uint8ClampedArray:
    """Bytes that store min(max(round-half-even(v), 0), 255) as JavaScript's array does."""

    def __init__(self, length):
        self.bytes = np.zeros(length, np.uint8)

    def __setitem__(self, index, value):
        value = float(value)
        self.bytes[index] = 0 if value != value else int(np.clip(np.rint(value), 0, 255))

    def __getitem__(self, index):
        return int(self.bytes[index])

    def __len__(self):
        return len(self.bytes)


class ImageData:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.data = Uint8ClampedArray(width * height * 4)


class Canvas:
    def __init__(self):
        self.width = self.height = 0
        self.imageData = None

    def getContext(self, kind):
        assert kind == '2d'
        return SimpleNamespace(putImageData=lambda data, x, y: setattr(self, 'imageData', data))


class Element:
    def __init__(self):
        self.children = []

    def appendChild(self, child):
        self.children.append(child)


def catImage(seed=2018):
    """The stand-in for the page's <img id="cat">: RGBA pixel data, {data, width, height}."""
    draw = mulberry32(seed)
    data = np.array([int(draw() * 256) if k % 4 != 3 else 255
                     for k in range(CAT_WIDTH * CAT_HEIGHT * 4)], np.uint8)
    return SimpleNamespace(data=data, width=CAT_WIDTH, height=CAT_HEIGHT)


class Document:
    def __init__(self):
        self.elements = {'cat': catImage(), 'output_image_1': Element(),
                         'output_image_2': Element()}

    def getElementById(self, id):
        return self.elements[id]

    def createElement(self, tag):
        assert tag == 'canvas'
        return Canvas()


document = Document()
