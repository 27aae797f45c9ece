// The hub's icon (a sun over a house), served at /favicon.ico as SVG: browsers ask for it on every
// page, and a 404 there is an error in the console. Colours that read on light and dark tabs.
export const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
  + '<circle cx="22" cy="9" r="6" fill="#f6c343"/>'
  + '<path d="M4 17 15 8l11 9v12H4z" fill="#2f855a"/>'
  + '<rect x="12" y="20" width="6" height="9" fill="#ffffff"/></svg>';
