// A minimal X11 protocol client in plain JavaScript: what the reference Node computer driver needs of a display.
//
// It speaks the core protocol over the display's Unix socket (no Xlib, no child processes): XTEST FakeInput for
// pointer and keyboard input (events enter the server's queue like hardware input, so the focused window sees
// ordinary key and button events), Get/ChangeKeyboardMapping to type symbols the keymap lacks, GetImage for
// screenshots, and GetInputFocus as the round trip that proves every earlier request was handled ("sync").
//
// Limits, stated rather than hidden: local displays only (":N", through /tmp/.X11-unix/XN), no X authority
// cookies (the kit's Xvfb runs without -auth), little-endian, and screenshots of 24/32-bit TrueColor roots.

import net from "node:net";
import zlib from "node:zlib";

export const KEY_PRESS = 2;
export const KEY_RELEASE = 3;
export const BUTTON_PRESS = 4;
export const BUTTON_RELEASE = 5;
export const MOTION_NOTIFY = 6;

const pad4 = (length) => (4 - (length % 4)) % 4;

export class X11Error extends Error {
  name = "X11Error";
}

export class X11Connection {
  static open(display, { timeoutMs = 10_000 } = {}) {
    const match = /^(?:unix)?:(\d+)(?:\.(\d+))?$/.exec(String(display));
    if (!match) throw new X11Error(`unsupported X display ${JSON.stringify(display)}: expected a local display such as :99`);
    const socketPath = `/tmp/.X11-unix/X${match[1]}`;
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new X11Error(`the X server at ${display} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      let received = Buffer.alloc(0);
      const onData = (chunk) => {
        received = Buffer.concat([received, chunk]);
        if (received.length < 8) return;
        const total = 8 + received.readUInt16LE(6) * 4;
        if (received.length < total) return;
        clearTimeout(timer);
        socket.off("data", onData);
        socket.off("error", onError);
        try {
          resolve(new X11Connection(socket, display, received.subarray(0, total), received.subarray(total)));
        } catch (error) {
          socket.destroy();
          reject(error);
        }
      };
      const onError = (error) => {
        clearTimeout(timer);
        reject(new X11Error(`cannot connect to X display ${display} (${socketPath}): ${error.message}`));
      };
      socket.on("data", onData);
      socket.on("error", onError);
      socket.on("connect", () => {
        const setup = Buffer.alloc(12);
        setup.writeUInt8(0x6c, 0); // "l": little-endian
        setup.writeUInt16LE(11, 2);
        setup.writeUInt16LE(0, 4);
        socket.write(setup);
      });
    });
  }

  constructor(socket, display, setup, rest) {
    const status = setup.readUInt8(0);
    if (status !== 1) {
      const reason = status === 0 ? setup.subarray(8, 8 + setup.readUInt8(1)).toString() : "authentication required";
      throw new X11Error(`the X server at ${display} refused the connection: ${reason}`);
    }
    this.display = display;
    this.socket = socket;
    this.minKeycode = setup.readUInt8(34);
    this.maxKeycode = setup.readUInt8(35);
    const vendorLength = setup.readUInt16LE(24);
    const formatCount = setup.readUInt8(29);
    let offset = 40 + vendorLength + pad4(vendorLength);
    this.bitsPerPixel = new Map();
    for (let index = 0; index < formatCount; index += 1, offset += 8) {
      this.bitsPerPixel.set(setup.readUInt8(offset), setup.readUInt8(offset + 1));
    }
    // The first screen: the desktop is one screen.
    this.root = setup.readUInt32LE(offset);
    this.width = setup.readUInt16LE(offset + 20);
    this.height = setup.readUInt16LE(offset + 22);
    this.rootDepth = setup.readUInt8(offset + 38);
    this.sequence = 0;
    this.pending = new Map(); // sequence -> {resolve, reject}
    this.stray = null; // an error for a request that has no reply, reported by the next sync
    // Received bytes not yet parsed, as the chunks they arrived in: a screenshot reply is megabytes in many
    // chunks, so they are joined once when the whole message is there, not on every chunk.
    this.chunks = rest.length ? [rest] : [];
    this.available = rest.length;
    this.closed = null;
    socket.on("data", (chunk) => {
      this.chunks.push(chunk);
      this.available += chunk.length;
      this.drain();
    });
    const ended = (why) => {
      this.closed = new X11Error(`the connection to X display ${display} ${why}`);
      for (const waiting of this.pending.values()) waiting.reject(this.closed);
      this.pending.clear();
    };
    socket.on("error", (error) => ended(`failed: ${error.message}`));
    socket.on("close", () => ended("closed"));
    this.drain();
  }

  // The first `size` received bytes (joining chunks only when the first one is too short).
  head(size) {
    if (this.chunks[0].length < size) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, size);
  }

  take(size) {
    const message = this.head(size);
    const rest = this.chunks[0].subarray(size);
    if (rest.length) this.chunks[0] = rest;
    else this.chunks.shift();
    this.available -= size;
    return message;
  }

  drain() {
    while (this.available >= 32) {
      const header = this.head(32);
      const kind = header.readUInt8(0);
      let size = 32;
      if (kind === 1) size += header.readUInt32LE(4) * 4;
      else if ((kind & 0x7f) === 35) size += header.readUInt32LE(4) * 4; // GenericEvent
      if (this.available < size) return;
      const message = this.take(size);
      if (kind === 0) {
        const code = message.readUInt8(1);
        const sequence = message.readUInt16LE(2);
        const error = new X11Error(`X request ${message.readUInt8(10)}.${message.readUInt16LE(8)} failed with error code ${code}`);
        const waiting = this.pending.get(sequence);
        if (waiting) {
          this.pending.delete(sequence);
          waiting.reject(error);
        } else {
          this.stray ??= error;
        }
      } else if (kind === 1) {
        const sequence = message.readUInt16LE(2);
        const waiting = this.pending.get(sequence);
        this.pending.delete(sequence);
        waiting?.resolve(message);
      }
      // Events: none are selected, and whatever arrives anyway is of no use here.
    }
  }

  send(request, expectReply = false) {
    if (this.closed) throw this.closed;
    this.sequence = (this.sequence + 1) & 0xffff;
    const sequence = this.sequence;
    this.socket.write(request);
    if (!expectReply) return null;
    return new Promise((resolve, reject) => this.pending.set(sequence, { resolve, reject }));
  }

  request(opcode, data, body = Buffer.alloc(0), expectReply = false) {
    const header = Buffer.alloc(4);
    header.writeUInt8(opcode, 0);
    header.writeUInt8(data, 1);
    header.writeUInt16LE((4 + body.length) / 4, 2);
    return this.send(Buffer.concat([header, body]), expectReply);
  }

  // Every request sent before has been handled once this resolves; an error one of them caused is thrown here.
  async sync() {
    await this.request(43, 0, Buffer.alloc(0), true); // GetInputFocus
    const stray = this.stray;
    this.stray = null;
    if (stray) throw stray;
  }

  async extensionOpcode(name) {
    const encoded = Buffer.from(name, "latin1");
    const body = Buffer.alloc(4 + encoded.length + pad4(encoded.length));
    body.writeUInt16LE(encoded.length, 0);
    encoded.copy(body, 4);
    const reply = await this.request(98, 0, body, true); // QueryExtension
    return reply.readUInt8(8) ? reply.readUInt8(9) : null;
  }

  async enableXtest() {
    this.xtest = await this.extensionOpcode("XTEST");
    if (this.xtest === null) throw new X11Error(`X display ${this.display} has no XTEST extension; input cannot be injected`);
  }

  fakeInput(type, detail, x = 0, y = 0) {
    const body = Buffer.alloc(32);
    body.writeUInt8(type, 0);
    body.writeUInt8(detail, 1);
    body.writeUInt32LE(0, 4); // CurrentTime
    body.writeUInt32LE(type === MOTION_NOTIFY ? this.root : 0, 8);
    body.writeInt16LE(x, 20);
    body.writeInt16LE(y, 22);
    this.request(this.xtest, 2, body); // XTEST FakeInput
  }

  async keyboardMapping() {
    const count = this.maxKeycode - this.minKeycode + 1;
    const body = Buffer.alloc(4);
    body.writeUInt8(this.minKeycode, 0);
    body.writeUInt8(count, 1);
    const reply = await this.request(101, 0, body, true); // GetKeyboardMapping
    const perKeycode = reply.readUInt8(1);
    const mapping = [];
    for (let index = 0; index < count; index += 1) {
      const keysyms = [];
      for (let level = 0; level < perKeycode; level += 1) keysyms.push(reply.readUInt32LE(32 + (index * perKeycode + level) * 4));
      mapping.push(keysyms);
    }
    return mapping;
  }

  changeKeyboardMapping(keycode, keysyms) {
    const body = Buffer.alloc(4 + keysyms.length * 4);
    body.writeUInt8(keycode, 0);
    body.writeUInt8(keysyms.length, 1);
    keysyms.forEach((keysym, index) => body.writeUInt32LE(keysym, 4 + index * 4));
    this.request(100, 1, body); // ChangeKeyboardMapping, one keycode
  }

  // The root window as a PNG (RGB, zlib level 1: encode time matters more than bytes for a screenshot sent at once).
  async screenshotPng() {
    const bpp = this.bitsPerPixel.get(this.rootDepth);
    if (this.rootDepth < 24 || bpp !== 32) {
      throw new X11Error(`screenshots need a 24-bit root with 32 bits per pixel; this display has depth ${this.rootDepth}, ${bpp} bpp`);
    }
    const body = Buffer.alloc(16);
    body.writeUInt32LE(this.root, 0);
    body.writeUInt16LE(this.width, 8);
    body.writeUInt16LE(this.height, 10);
    body.writeUInt32LE(0xffffffff, 12);
    const reply = await this.request(73, 2, body, true); // GetImage, ZPixmap
    const pixels = reply.subarray(32);
    const { width, height } = this;
    const rows = Buffer.alloc((width * 3 + 1) * height);
    for (let y = 0, out = 0; y < height; y += 1) {
      rows[out++] = 0; // filter: none
      for (let x = 0, input = y * width * 4; x < width; x += 1, input += 4) {
        rows[out++] = pixels[input + 2];
        rows[out++] = pixels[input + 1];
        rows[out++] = pixels[input];
      }
    }
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header.set([8, 2, 0, 0, 0], 8);
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", zlib.deflateSync(rows, { level: 1 })),
      chunk("IEND", Buffer.alloc(0)),
    ]);
  }

  close() {
    this.socket.end();
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let crc = 0xffffffff;
  for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
