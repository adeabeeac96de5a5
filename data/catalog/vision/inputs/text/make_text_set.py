"""Rebuild the text-detection input set: words we render with PIL onto CC0 scikit-image photos.

The ground-truth box of each line is the exact bounding box of its inked pixels (the text is
drawn on an empty layer first), so nothing is labelled by eye. Deterministic for a given Pillow
(pinned in requirements.txt). Run from the repository root:
``.venv/bin/python data/catalog/vision/inputs/text/make_text_set.py [OUT_DIR]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "cc0"
FILL, STROKE = (255, 255, 255), (0, 0, 0)
STROKE_PX = 2

# (output file, source photo, [(text, x_px, y_px, font_size_px), ...])
LAYOUT = (
    ("astronaut_text.png", "astronaut.png", [("MODEL", 24, 300, 44), ("ATLAS 2026", 300, 440, 36)]),
    ("coffee_text.png", "coffee.png", [("open data", 30, 20, 40), ("CC0", 470, 330, 48)]),
    ("chelsea_text.png", "chelsea.png", [("hello cat", 20, 230, 38)]),
    ("camera_text.png", "camera.png", [("PHOTO", 330, 30, 46), ("no. 42", 20, 440, 34)]),
)  # fmt: skip


def _ink_box(size: tuple[int, int], text: str, xy: tuple[int, int], font) -> list[int]:
    """[x, y, w, h] of the pixels the text (with its stroke) inks, in image pixels."""
    layer = Image.new("L", size, 0)
    ImageDraw.Draw(layer).text(xy, text, font=font, fill=255, stroke_width=STROKE_PX)
    ys, xs = np.nonzero(np.asarray(layer))
    x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
    return [x0, y0, x1 - x0, y1 - y0]


def _compose(source: str, lines: list) -> tuple[Image.Image, list[tuple[str, list[int]]]]:
    """The photo with its lines drawn, and each line's text and ink box."""
    with Image.open(SOURCE / source) as im:
        image = im.convert("RGB")
    draw = ImageDraw.Draw(image)
    boxes = []
    for text, x, y, size in lines:
        font = ImageFont.load_default(size=size)
        draw.text((x, y), text, font=font, fill=FILL, stroke_width=STROKE_PX, stroke_fill=STROKE)
        boxes.append((text, _ink_box(image.size, text, (x, y), font)))
    return image, boxes


def ground_truth(out_dir: Path, write_images: bool = True) -> dict:
    """COCO ground truth of the set (and the images written to ``out_dir``)."""
    images, annotations = [], []
    for image_id, (name, source, lines) in enumerate(LAYOUT, start=1):
        image, boxes = _compose(source, lines)
        if write_images:
            image.save(out_dir / name)
        images.append({"id": image_id, "file_name": name, "width": image.width,
                       "height": image.height})  # fmt: skip
        for text, bbox in boxes:
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": 1, "bbox": bbox, "area": bbox[2] * bbox[3],
                                "iscrowd": 0, "text": text})  # fmt: skip
    return {
        "info": {
            "description": "Model Atlas text-detection input set (our own, not a standard "
            "benchmark): lines of text rendered with PIL (Aileron Regular, CC0, the font "
            "Pillow embeds) onto four CC0 / public-domain scikit-image 0.26.0 photographs. Each "
            "box is the exact bounding box of the line's inked pixels (fill and 2 px stroke).",
            "generator": "data/catalog/vision/inputs/text/make_text_set.py",
            "date_created": "2026-12-01",
        },
        "images": images,
        "annotations": annotations,
        "categories": [{"id": 1, "name": "text", "supercategory": "text"}],
    }


def main(out_dir: Path = HERE) -> None:
    """Write the images and ``text_gt.json`` into ``out_dir``."""
    data = ground_truth(out_dir)
    (out_dir / "text_gt.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
